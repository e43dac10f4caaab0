/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The set-up the driver-host tests share (acceld-hang, -isolation,
 * -sandbox): a real acceld whose plugin folder holds the faulty test
 * plugin (plugins/faulty), a config file of the test's own, and the model
 * the faulty driver runs (y = a + b on float[1,4]).
 */
#pragma once

#include <stdbool.h>

#include "harness.h"

/* FAULTY("hang"): settings that send the ADD to the faulty driver. */
#define FAULTY(mode) "{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"" mode "\"}}"

/* From main(), after harness_init(): argv[3] is the faulty plugin, whose
 * folder becomes ACCELD_PLUGIN_DIR of every acceld started with
 * harness_faulty_env(). false (usage printed) when it is missing: the
 * test then exits 77. */
bool harness_faulty_init(int argc, char **argv);

/* { "ACCELD_PLUGIN_DIR=<folder>", NULL }: extra_env for harness_start(). */
const char *const *harness_faulty_env(void);

/* Write `config` to <d->dir>/acceld.conf (mode 0644, so an acceld under
 * another uid reads it too) and return its path (static storage, valid
 * until the next call). d must be prepared. Aborts the test on failure. */
const char *harness_faulty_config(harness_daemon_t *d, const char *config);

/* harness_prepare(d), the config above, acceld started with it and the
 * plugin folder, and waited for. */
void harness_faulty_up(harness_daemon_t *d, const char *config);

/* The ADD model written to <d->dir>/add.tflite (mode 0644); the path is
 * malloc'ed (caller frees). Aborts the test on failure. */
char *harness_faulty_add_model(harness_daemon_t *d);
