/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lanes: burst executions over shared memory (NNAPI's execution burst).
 * After PrepareModel, a client may open a lane for a handle with fixed
 * input and output regions and a control block (ipc.h, ipc_lane_ctl_t) in
 * one of its registered buffers. A thread of acceld's, one per lane, waits
 * for the client to ring the block (a short spin, then a futex), runs the
 * execution exactly as a worker runs an Execute (serving__execute_one():
 * the instance's execution slots, the CPU budget, the deadline, driver
 * hosts' deadline and quarantine), writes the outputs in place, the status
 * and shapes into the block, and wakes the client. No frame, no loop
 * wake-up, no queue: the round trip is two cache-line transfers when both
 * sides spin, two futex wake-ups when they sleep.
 *
 * Limits: max_lanes open at once (config; 0 = off), and per uid as many
 * as max_queued_per_uid (a lane holds at most one execution). A lane closes with LaneClose or its connection; its
 * thread finishes the execution in progress and is joined on the loop.
 *
 * Loop thread only, except the lane threads themselves.
 */
#pragma once

#include <stdint.h>

typedef struct daemon_serving daemon_serving_t;
typedef struct serving_session serving_session_t;
typedef struct daemon_lanes daemon_lanes_t;
typedef struct serving_handle serving_handle_t;

/* Set up sv->lanes on the loop. 0 or -errno. */
int serving__lanes_init(daemon_serving_t *sv);
/* Stop every lane, join its thread and free it (shutdown; after the
 * connections closed, before the scheduler stops). */
void serving__lanes_done(daemon_serving_t *sv);
/* The connection of `ss` is closing: stop its lanes (their threads are
 * joined on the loop once they exit). */
void serving__lanes_close_session(serving_session_t *ss);
/* Handle `h` is being released: stop its lanes (a lane must not keep an
 * instance its uid no longer has a handle, and a quota, for). */
void serving__lanes_close_handle(daemon_serving_t *sv, const serving_handle_t *h);
/* GetStatus: lanes open, executions they served. */
unsigned serving__lanes_open(const daemon_serving_t *sv);
uint64_t serving__lanes_executions(const daemon_serving_t *sv);
