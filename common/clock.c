/* SPDX-License-Identifier: Apache-2.0 */
#include "clock.h"

int64_t acc_clock_us(clockid_t id) {
        struct timespec ts;
        (void) clock_gettime(id, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint64_t acc_now_ns(void) {
        struct timespec ts;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

uint64_t acc_now_us(void) {
        return acc_now_ns() / 1000u;
}
