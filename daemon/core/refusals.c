/* SPDX-License-Identifier: Apache-2.0 */
/* Refusals by limit: one atomic counter per limit (refusals.inc). */
#include <stddef.h>

#include "refusals.h"

static uint64_t counts[_DAEMON_REFUSAL_MAX];

static const char *const names[_DAEMON_REFUSAL_MAX] = {
#define DAEMON_REFUSAL(name, what) [DAEMON_REFUSAL_##name] = #name,
#include "refusals.inc"
#undef DAEMON_REFUSAL
};

void daemon_refusal_count(daemon_refusal_t which) {
        if ((unsigned) which < _DAEMON_REFUSAL_MAX)
                (void) __atomic_add_fetch(&counts[which], 1, __ATOMIC_RELAXED);
}

uint64_t daemon_refusals_get(daemon_refusal_t which) {
        return (unsigned) which < _DAEMON_REFUSAL_MAX ? __atomic_load_n(&counts[which], __ATOMIC_RELAXED) : 0;
}

const char *daemon_refusal_name(daemon_refusal_t which) {
        return (unsigned) which < _DAEMON_REFUSAL_MAX ? names[which] : NULL;
}
