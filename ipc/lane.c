/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The futex words of a lane's control block (ipc.h, "lanes"): shared
 * futexes, because the block is a MAP_SHARED memfd two processes map.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "ipc.h"

int ipc_lane_futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_us) {
        struct timespec ts = {
                .tv_sec = (time_t) (timeout_us / 1000000u),
                .tv_nsec = (long) (timeout_us % 1000000u) * 1000,
        };

        if (syscall(SYS_futex, word, FUTEX_WAIT, expected, timeout_us ? &ts : NULL, NULL, 0) == 0)
                return 0;
        if (errno == EAGAIN)
                return 0;       /* the word had changed already */
        return -errno;
}

void ipc_lane_futex_wake(uint32_t *word) {
        (void) syscall(SYS_futex, word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
}

bool ipc_lane_spin(const uint32_t *word, uint32_t expected, uint64_t spin_us) {
        uint64_t end;

        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != expected)
                return true;
        if (spin_us == 0)
                return false;
        end = acc_now_ns() + spin_us * 1000u;
        do {
                for (int i = 0; i < 64; i++) {
                        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != expected)
                                return true;
                        cpu_relax();
                }
        } while (acc_now_ns() < end);
        return __atomic_load_n(word, __ATOMIC_ACQUIRE) != expected;
}
