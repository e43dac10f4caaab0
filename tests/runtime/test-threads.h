/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Thread counts for runtime tests that check which threads a pool starts
 * and stops (the threadpool, XNNPACK's pool, the partitioned plan's one
 * pool). Check-based: a failure to read the count fails the test.
 */
#pragma once

/* The threads of this process now (/proc/self/task). */
int test_threads_count(void);

/* The count before a test's pools: a thread is started and joined first,
 * so that the sanitizers' own background thread (ThreadSanitizer starts
 * one with the first thread) is already there. */
int test_threads_before(void);
