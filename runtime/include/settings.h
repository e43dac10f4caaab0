/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Acceleration settings: a C form of the configuration seed's TFLiteSettings
 * (the fields the runtime honours), and a parser for its JSON form, using
 * the seed's field names:
 *
 *   {"delegate": "XNNPACK",
 *    "xnnpack_settings": {"num_threads": 2, "flags": "TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16"},
 *    "cpu_settings": {"num_threads": 1},
 *    "fallback_settings": {"allow_automatic_fallback_on_compilation_error": true,
 *                          "allow_automatic_fallback_on_execution_error": false},
 *    "max_delegated_partitions": 1,
 *    "min_nodes_per_partition": 3,
 *    "plugin_settings": {"mode": "hang"}}
 *
 * "min_nodes_per_partition" is ours (TFLiteSettings has no such field):
 * delegated groups smaller than it run on the reference kernels.
 * "delegate" is one of the seed's Delegate names (NONE, NNAPI, GPU, HEXAGON,
 * XNNPACK, EDGETPU, EDGETPU_CORAL) or, as our extension, the name of a plugin
 * driver ("faulty"). "plugin_settings" (our extension) is handed to a plugin
 * driver as JSON text. xnnpack_settings.flags takes the XNNPACK delegate's
 * flag names (one string, an array of them, or the integer bitmask).
 *
 * Plain data, no hidden state: copy with rt_settings_copy(), which
 * duplicates the one owned string.
 *
 * Public (runtime/include/). rt_settings_t itself is the driver ABI's
 * (<accel/driver.h>): drivers read it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/driver.h" /* rt_settings_t, rt_delegate_t, RT_XNNPACK_FLAG_* */

/* Defaults: delegate NONE, threads unset, no limit, no fallback. */
void rt_settings_init(rt_settings_t *s);

/* Free what s owns (plugin_settings) and reinitialise. NULL-safe. */
void rt_settings_done(rt_settings_t *s);

/* Deep copy into *dst (initialised by this call). 0 or -ENOMEM. */
int rt_settings_copy(rt_settings_t *dst, const rt_settings_t *src);

/*
 * Parse the JSON text `json` into *ret (initialised by this call; call
 * rt_settings_done() afterwards). Unknown fields of the seed (nnapi_settings,
 * gpu_settings, ...) are accepted and ignored. Returns 0, -EINVAL with a
 * message in err (malformed JSON, unknown delegate or flag, a wrong type,
 * negative thread count other than -1) or -ENOMEM. *ret is written only on
 * success.
 */
int rt_settings_parse_json(const char *json, rt_settings_t *ret, char *err, size_t err_size);

/* The same for a file. -errno from reading it, else as above. */
int rt_settings_load_file(const char *path, rt_settings_t *ret, char *err, size_t err_size);

/* Threads for the selected delegate: xnnpack_num_threads when set and the
 * delegate is XNNPACK, else cpu_num_threads, else `def`. Always >= 1. */
int32_t rt_settings_num_threads(const rt_settings_t *s, int32_t def);

/* "NONE", "XNNPACK", ... or the plugin name. Never NULL. */
const char *rt_settings_delegate_name(const rt_settings_t *s);

/* Case-insensitive edit distance between two names (names past 63
 * characters count as entirely different). */
size_t rt_settings_name_distance(const char *a, const char *b);

/* Whether `typed` looks like a typo of `known`: different, but within two
 * edits and a third of known's length. */
bool rt_settings_name_close(const char *typed, const char *known);

/* The seed's Delegate name `name` most likely meant ("XNNPACK" for
 * "XNNPAK"), or NULL when none is close. */
const char *rt_settings_delegate_suggest(const char *name);

/*
 * ---- The protobuf form, the key, the driver (settings-pb.c) ----
 *
 * The one converter between rt_settings_t and the seed's TFLiteSettings:
 * PrepareModel's compute_settings, benchmark candidates, events and
 * decisions, cache records and driver-host frames all go through it, so a
 * setting means the same thing on every path.
 *
 * The seed's TFLiteSettings cannot name a plugin driver and its
 * XNNPackSettings has no flags. Those travel as extra fields that protobuf
 * keeps as unknown fields (so every blob still decodes with the seed
 * schema, and storage's proto key, store_settings_key(), includes them):
 *   XNNPackSettings field 2 (varint)   the XNNPACK delegate flags, the
 *                                      number TFLite's own schema uses
 *   TFLiteSettings field 1000 (bytes)  plugin driver name
 *   TFLiteSettings field 1001 (bytes)  plugin_settings JSON text
 *   TFLiteSettings field 1002 (varint) min_nodes_per_partition: delegated
 *                                      groups with fewer nodes run on the
 *                                      reference kernels (written when > 1)
 *
 * Pure functions; any thread.
 */
#define RT_SETTINGS_FIELD_XNNPACK_FLAGS 2
#define RT_SETTINGS_FIELD_PLUGIN_NAME 1000
#define RT_SETTINGS_FIELD_PLUGIN_SETTINGS 1001
#define RT_SETTINGS_FIELD_MIN_NODES_PER_PARTITION 1002

/* The generated protobuf-c message (proto/acceleration.proto). */
struct Tflite__Proto__TFLiteSettings;

/*
 * Decode a TFLiteSettings message into *ret (initialised by this call;
 * rt_settings_done() it). A plugin named in field 1000 wins over
 * `delegate`; other delegates (GPU, NNAPI, ...) are kept by number and the
 * runtime refuses them later with -ENODEV. Returns 0, -EINVAL with a message
 * in err (NULL message, a delegate value out of range, a malformed
 * extension field, a thread count below -1) or -ENOMEM.
 */
int rt_settings_from_proto(const struct Tflite__Proto__TFLiteSettings *p, rt_settings_t *ret, char *err,
                           size_t err_size);

/* Unpack and decode a serialized TFLiteSettings blob (data may be NULL when
 * size is 0: all defaults). -EINVAL when it does not parse, else as above. */
int rt_settings_parse_proto(const void *data, size_t size, rt_settings_t *ret, char *err, size_t err_size);

/* Serialize `s` as a TFLiteSettings: *ret (malloc'ed, caller frees) and
 * *ret_size; an all-default setting gives a non-NULL buffer of size 0.
 * rt_settings_parse_proto() reads it back to an equal setting.
 * Returns 0, -EINVAL or -ENOMEM. */
int rt_settings_pack(const rt_settings_t *s, uint8_t **ret, size_t *ret_size);

/* The same as a message (free with tflite__proto__tflite_settings__free_unpacked()). */
int rt_settings_to_proto(const rt_settings_t *s, struct Tflite__Proto__TFLiteSettings **ret);

/* The JSON form of `s` (rt_settings_parse_json() reads it back to an equal
 * setting). *ret malloc'ed. Returns 0 or -ENOMEM. */
int rt_settings_to_json(const rt_settings_t *s, char **ret);

/*
 * The canonical key of an instance: "delegate=XNNPACK;threads=2;
 * xnnpack_flags=0;max_partitions=0;fallback=10;plugin=", only what changes
 * the compiled result; ";min_nodes=N" is appended when
 * min_nodes_per_partition is set (> 1). PrepareModel answers it, and cache records and
 * evaluations store it (existing databases hold it: never change the
 * format). Benchmark events and decisions are keyed instead by storage's
 * store_settings_key() of rt_settings_pack()'s bytes, also stored; the two
 * are different columns of different tables, each computed in one place.
 */
void rt_settings_key(const rt_settings_t *s, char *buf, size_t size);

/* The driver (and scheduler queue) a setting runs on: "reference" (NONE),
 * "xnnpack" or the plugin's name (static, or owned by s). */
const char *rt_settings_driver_name(const rt_settings_t *s);

/* A short label for tables: "reference", "reference/2t", "xnnpack/4t",
 * "xnnpack/2t/fp16", "xnnpack/2t/qs8" (only the int8 path), "/qu8",
 * "/sparse", "/maxp1" (max_delegated_partitions), "/min3"
 * (min_nodes_per_partition), "faulty", "faulty{"mode":"hang"}". Always
 * NUL-terminated. */
void rt_settings_label(const rt_settings_t *s, char *buf, size_t size);
