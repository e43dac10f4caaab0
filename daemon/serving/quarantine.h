/* SPDX-License-Identifier: Apache-2.0 */
/* Serving's quarantine of driver-host failures (quarantine.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"

/*
 * Whether model `sha256` may be prepared with `s`: 0 yes; 1 it runs on the
 * CPU instead (the settings allow fallback; why says so); -ENODEV refused,
 * with the reason in why. Settings that name no hosted driver are always
 * admitted. Worker threads only (waits on the storage thread).
 */
int daemon_quarantine_admit(const char *sha256, const rt_settings_t *s, char *why, size_t why_size);

/* Record that the host of the driver `s` names died while preparing or
 * running model `sha256` (an ERROR event). Worker threads only. */
void daemon_quarantine_record(const char *sha256, const rt_settings_t *s, bool during_prepare);
