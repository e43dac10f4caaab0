/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver interface, modelled on the NNAPI IDevice: a driver has a name,
 * a version and a type; capabilities (performance per operand type relative
 * to the reference driver, measured once by a short calibration and cached);
 * it tells which nodes of a graph it supports (one bool per node, a reason
 * when false); it prepares a set of nodes with settings and an optional
 * deadline; it executes a prepared set; and it releases it.
 *
 * The built-in drivers are `reference` (every op the resolver has) and, when
 * built with XNNPACK, `xnnpack`. Plugin drivers (plugin.h) return the same
 * struct from their entry point, so the struct layout is part of the plugin
 * ABI, and so are the structs it passes (rt_driver_graph_t, rt_tensor_t and
 * rt_node_t from kernel.h, rt_settings_t from settings.h): change
 * RT_DRIVER_ABI_VERSION whenever any of them changes.
 *
 * Threads: supported_ops and prepare may run on any thread; one prepared
 * instance is executed by one thread at a time. A driver keeps no mutable
 * global state except what its calibration caches (guarded by driver.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "model.h"
#include "settings.h"

#define RT_DRIVER_ABI_VERSION 2u

/* Entry point every plugin exports (see plugin.h). */
#define RT_DRIVER_ENTRY_SYMBOL "acceld_driver_entry_v1"

/* NNAPI DeviceType numbers. */
typedef enum rt_driver_type {
        RT_DRIVER_TYPE_OTHER = 1,
        RT_DRIVER_TYPE_CPU = 2,
        RT_DRIVER_TYPE_GPU = 3,
        RT_DRIVER_TYPE_ACCELERATOR = 4,
} rt_driver_type_t;

/* NNAPI PerformanceInfo: ratios to the reference driver (lower is better);
 * 1.0 for the reference driver itself, 0 = not measured. */
typedef struct rt_driver_perf {
        float exec_time;
        float power_usage;
} rt_driver_perf_t;

typedef struct rt_driver_caps {
        rt_driver_perf_t relaxed_fp32_as_fp16;
        rt_driver_perf_t operand[_RT_TYPE_MAX];  /* per tensor type; 0 = unsupported */
        rt_driver_perf_t if_perf;
        rt_driver_perf_t while_perf;
} rt_driver_caps_t;

#define RT_DRIVER_REASON_MAX 128

/*
 * The weights-cache hook (ABI 2). A driver that derives data from constant
 * weights (packed filters, converted layouts, compiled blobs) and can take
 * that data back later asks the hook for it by a key of its own, and on a
 * miss stores what it built; the runtime scopes keys by model and build and
 * keeps the data in the weights cache (wcache.h): one read-only shared
 * mapping per file for every instance and process, kept across restarts.
 * Start keys with the driver's name and a version of the layout
 * ("mydriver/v3/conv/node12"). Data handed out stays valid until unref.
 * Debian's XNNPACK (2022) cannot take packed weights from outside, so the
 * built-in drivers do not use it (docs/architecture.md, "Weights cache").
 */
typedef struct rt_driver_weights rt_driver_weights_t;
struct rt_driver_weights {
        /* 0 with the data, its size and a reference to drop with unref, or
         * -ENOENT on a miss; other -errno when the cache cannot be read. */
        int (*lookup)(const rt_driver_weights_t *w, const char *key, const void **ret_data, size_t *ret_size,
                      void **ret_ref);
        /* Store data[0..size) under key (copied to the cache file) and hand
         * back the shared copy, as lookup does. -EDQUOT over the quota. */
        int (*insert)(const rt_driver_weights_t *w, const char *key, const void *data, size_t size,
                      const void **ret_data, void **ret_ref);
        void (*unref)(const rt_driver_weights_t *w, void *ref);
};

/* What a driver sees of a graph: the interpreter's tensors and nodes. */
typedef struct rt_driver_graph {
        const rt_model_t *model;
        rt_tensor_t *tensors;
        int32_t n_tensors;
        const rt_node_t *nodes;
        int32_t n_nodes;
        const rt_driver_weights_t *weights;  /* NULL without a weights cache */
} rt_driver_graph_t;

/*
 * One prepared group of nodes. inputs/outputs are the graph tensor indices
 * crossing the group's boundary (non-constant inputs; outputs read outside
 * the group or graph outputs); at execute, their data pointers in
 * graph->tensors are valid (they live in the executor's arena, or in caller
 * memory bound with rt_interp_set_tensor_buffer(): RT_BUFFER_ALIGN-aligned,
 * with RT_BUFFER_SLACK readable bytes past inputs). A pointer may change
 * between executes.
 */
typedef struct rt_driver_group {
        const int32_t *nodes;
        int32_t n_nodes;
        const int32_t *inputs;
        int32_t n_inputs;
        const int32_t *outputs;
        int32_t n_outputs;
} rt_driver_group_t;

typedef struct rt_driver rt_driver_t;

struct rt_driver {
        uint32_t abi_version;  /* RT_DRIVER_ABI_VERSION */
        const char *name;      /* "reference", "xnnpack", "faulty"; unique */
        const char *version;
        rt_driver_type_t type;
        void *data;            /* the driver's own */

        /*
         * Measure performance relative to the reference driver (a short run of
         * a few fixed workloads). Called at most once per process by
         * rt_driver_capabilities(), which caches the result. May be NULL
         * (then every supported type is reported at 1.0).
         */
        int (*calibrate)(const rt_driver_t *d, rt_driver_caps_t *ret);

        /*
         * For every node of `g`, whether this driver can run it with these
         * settings (may be NULL = defaults). ret_supported[i] and, when
         * false, reasons[i] (a sentence such as "XNNPACK: fused TANH
         * activation not supported") for i < g->n_nodes. 0 or -errno.
         */
        int (*supported_ops)(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                             bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]);

        /*
         * Compile `group` of `g` with the tensors' current shapes.
         * deadline_ns: CLOCK_MONOTONIC nanoseconds, 0 = none (-ETIME when
         * passed). *ret_prepared is the driver's handle, released with
         * release. 0, -ENOTSUP / -EINVAL / -ENODEV / -ETIME / -ENOMEM with
         * a message in err.
         */
        int (*prepare)(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *group,
                       const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, char *err,
                       size_t err_size);

        /* Run a prepared group: read its inputs, write its outputs in
         * g->tensors. 0 or -errno with a message in err. */
        int (*execute)(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size);

        /* Free a prepared group. NULL-safe. */
        void (*release)(void *prepared);
};

/* ---- registry (driver.c) ---- */

/*
 * Register `d` (borrowed; must stay valid until rt_driver_unregister() or
 * process exit). Returns 0, -EINVAL (NULL, no name, missing hooks),
 * -EPROTO (abi_version is not RT_DRIVER_ABI_VERSION), -EEXIST (a driver of
 * that name exists) or -ENOMEM. Thread-safe.
 */
int rt_driver_register(const rt_driver_t *d);

/* Remove the driver named `name`. 0 or -ENOENT. Thread-safe; the caller
 * guarantees nothing still uses it. */
int rt_driver_unregister(const char *name);

/* The driver named `name` (case-insensitive), registering the built-in
 * drivers on first use; NULL when there is none. Thread-safe. */
const rt_driver_t *rt_driver_find(const char *name);

/* Number of registered drivers and the i-th (registration order). */
size_t rt_driver_count(void);
const rt_driver_t *rt_driver_get(size_t i);

/*
 * Capabilities of `d`, calibrated on the first call per driver and cached in
 * memory. 0 or the calibration's -errno. Thread-safe.
 */
int rt_driver_capabilities(const rt_driver_t *d, rt_driver_caps_t *ret);

/* Forget cached capabilities (tests). */
void rt_driver_capabilities_reset(void);

/* ---- built-in drivers ---- */

/* The reference kernels as a driver (drivers/reference.c). */
const rt_driver_t *rt_driver_reference(void);

/* The XNNPACK driver (drivers/xnnpack/), or NULL when built without it. */
const rt_driver_t *rt_driver_xnnpack(void);

/* Map an xnn_status value to -errno (drivers/xnnpack only). */
int rt__xnn_status_to_errno(int status);
