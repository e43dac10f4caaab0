/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The last step of a child forked from a threaded process (the benchmark
 * workers, the driver hosts): every signal back to its default action,
 * none blocked, then execv(). Async-signal-safe; never returns (_exit(127)
 * when exec fails).
 */
#pragma once

__attribute__((noreturn)) void acc_child_exec(const char *exe, char *const argv[]);
