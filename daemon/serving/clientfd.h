/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Taking a client's fd safely (clientfd.c): the one place a model or buffer
 * fd sent with a request becomes memory acceld may touch. A page the client
 * can still shrink is never mapped, and an fd that never ends is never read
 * unbounded: a SIGBUS or a worker pinned on /dev/zero are bugs wherever they
 * come from (docs/architecture.md, "Client fds").
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* How long reading a model from an fd that is not a sealed memfd (a file,
 * a pipe, a device) may take at most; an earlier request deadline wins. */
#define DAEMON_CLIENTFD_READ_MS 10000u

/*
 * Model bytes from the client's `fd` (borrowed, never closed, its file
 * position untouched unless it is a pipe, socket or device):
 *
 *   - a memfd sealed with F_SEAL_SHRINK and F_SEAL_WRITE is used as it is:
 *     the seals are read first, the size after them, and *ret_fd is a dup;
 *   - anything else (a regular file, an unsealed memfd, a pipe, a socket, a
 *     device) is read, at most max_bytes + 1 bytes and until deadline_ns,
 *     into a memfd acceld creates and seals itself (F_SEAL_SHRINK,
 *     F_SEAL_GROW, F_SEAL_WRITE, F_SEAL_SEAL); a regular file larger than
 *     max_bytes is refused before any read.
 *
 * Either way *ret_fd (owned by the caller, O_CLOEXEC) can be mapped
 * read-only for *ret_size bytes, and its contents never change.
 * deadline_ns is on the CLOCK_MONOTONIC (uv_hrtime()) scale; 0 means none,
 * and the read never takes longer than DAEMON_CLIENTFD_READ_MS anyway.
 *
 * Returns 0; -EINVAL (a directory, an empty model; err says which), -EDQUOT
 * (more than max_bytes), -ETIMEDOUT (the fd gave no end in time), -ENOMEM,
 * or -errno of a failed read or memfd. err (may be NULL) gets the reason.
 * Blocks for up to the deadline: worker threads only, never the loop.
 */
int daemon_clientfd_model(int fd, size_t max_bytes, uint64_t deadline_ns, int *ret_fd, size_t *ret_size,
                          char *err, size_t err_size);

/*
 * Check the client's buffer `fd` (borrowed) before it is mapped read-write
 * and shared with the client: it must be a memfd sealed with F_SEAL_SHRINK
 * (it is shared memory, so it is never copied). The seals are read first and
 * the size after them, so a file shrunk and then sealed is seen at its final
 * size. *ret_size: 1 .. max_bytes. Returns 0 or -EINVAL with err (may be
 * NULL) saying why; -errno of fstat. Any thread; does not block.
 */
int daemon_clientfd_buffer(int fd, uint64_t max_bytes, size_t *ret_size, char *err, size_t err_size);
