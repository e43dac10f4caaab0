/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Benchmark settings: converting the runtime's rt_settings_t (runtime/
 * settings.h) to and from the seed's TFLiteSettings protobuf, which is what
 * benchmark events and decisions record.
 *
 * The seed's TFLiteSettings cannot name a plugin driver, and its
 * XNNPackSettings has no flags. Those travel as extra fields that protobuf
 * keeps as unknown fields (so every blob still decodes with the seed
 * schema, and store_settings_key() includes them in the canonical key):
 *   XNNPackSettings field 2 (varint)   the XNNPACK delegate flags, the
 *                                      number TFLite's own schema uses
 *   TFLiteSettings field 1000 (bytes)  plugin driver name
 *   TFLiteSettings field 1001 (bytes)  plugin_settings JSON text
 *
 * Pure functions; any thread.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "acceleration.pb-c.h"
#include "settings.h"

#define BENCH_FIELD_XNNPACK_FLAGS 2
#define BENCH_FIELD_PLUGIN_NAME 1000
#define BENCH_FIELD_PLUGIN_SETTINGS 1001

/* Serialize `s` as a TFLiteSettings. *ret (malloc'ed, caller frees) and
 * *ret_size; an all-default setting gives a non-NULL buffer of size 0.
 * Returns 0 or -ENOMEM. */
int bench_settings_pack(const rt_settings_t *s, uint8_t **ret, size_t *ret_size);

/* Unpack bench_settings_pack()'s bytes (or any TFLiteSettings) as a message
 * (free with tflite__proto__tflite_settings__free_unpacked()).
 * Returns 0, -EBADMSG or -ENOMEM. */
int bench_settings_unpack_proto(const uint8_t *data, size_t size, Tflite__Proto__TFLiteSettings **ret);

/* TFLiteSettings (message, or bytes) to rt_settings_t (initialised here;
 * rt_settings_done() it). Delegates other than NONE, XNNPACK and a plugin
 * named in field 1000 are kept by number (the runtime then refuses them
 * with -ENODEV). Returns 0, -EBADMSG, -ENOMEM. */
int bench_settings_from_proto(const Tflite__Proto__TFLiteSettings *t, rt_settings_t *ret);
int bench_settings_from_bytes(const uint8_t *data, size_t size, rt_settings_t *ret);

/* The runtime JSON form of `s` (rt_settings_parse_json() reads it back to
 * an equal setting). *ret malloc'ed. Returns 0 or -ENOMEM. */
int bench_settings_to_json(const rt_settings_t *s, char **ret);

/* The canonical key (store_settings_key() of the packed TFLiteSettings).
 * *ret malloc'ed. Returns 0 or -ENOMEM. */
int bench_settings_key(const rt_settings_t *s, char **ret);

/* A short label for tables: "reference", "reference/2t", "xnnpack/4t",
 * "xnnpack/2t/fp16", "faulty", "faulty{"mode":"hang"}". Always
 * NUL-terminated. */
void bench_settings_label(const rt_settings_t *s, char *buf, size_t size);

/* Threads the setting uses (1 for the reference path unless set). */
int32_t bench_settings_threads(const rt_settings_t *s);

/* The driver the setting runs on: "reference", "xnnpack" or the plugin's
 * name (static or owned by s). */
const char *bench_settings_driver(const rt_settings_t *s);
