/* SPDX-License-Identifier: Apache-2.0 */
/*
 * <accel/driver.h>: the acceld driver ABI, everything a driver plugin sees.
 *
 * Installed with acceld (beside <accel/accel.h>, libaccel's header) together
 * with the two lists it expands, <accel/ops.inc> and <accel/options.inc>.
 * A plugin needs these three files and libc's headers, nothing else: build
 * it with `-I<includedir>` alone and link nothing from acceld.
 *
 * It defines the driver (struct rt_driver: name, version, type, calibrate,
 * supported_ops, prepare, execute, release), its capabilities, the group
 * and graph views a driver is handed, the weights-cache hook, and the data
 * a driver reads: tensors, nodes, their options tables, element types,
 * builtin op codes, options tags and the acceleration settings. The runtime
 * includes this header for those types (runtime/kernel.h, model.h,
 * settings.h, driver.h), so each is defined exactly once.
 *
 * Versioning. RT_DRIVER_ABI_VERSION changes whenever the layout or the
 * meaning of anything here changes; a driver states the version it was
 * built for in rt_driver_t.abi_version; abi_version and name stay the
 * struct's first two fields in every version, and the runtime refuses any
 * other version with -EPROTO and a message naming the driver and both
 * numbers, without touching the rest of the struct. The entry point
 * (RT_DRIVER_ENTRY_SYMBOL) keeps its name and signature across ABI versions
 * precisely so that an older or newer plugin is found and then refused by
 * its version, with that message, instead of failing to load.
 *
 *   ABI 1  the first plugin interface
 *   ABI 2  rt_driver_graph_t.weights, the weights-cache hook
 *   ABI 3  prepare reports a failure as data (rt_driver_error_t: the graph
 *          node it failed on, or -1, and a message) instead of a text
 *          buffer; this header became the installed, self-contained ABI
 *
 * Threads: supported_ops and prepare may run on any thread; one prepared
 * group is executed by one thread at a time. A driver keeps no mutable
 * global state except what its calibration caches.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_DRIVER_ABI_VERSION 3u

/*
 * Entry point every plugin exports:
 *
 *   const rt_driver_t *acceld_driver_entry_v1(uint32_t runtime_abi_version);
 *
 * returning the plugin's driver (or NULL). "v1" is the version of this
 * function's signature, not of the driver ABI (see above).
 */
#define RT_DRIVER_ENTRY_SYMBOL "acceld_driver_entry_v1"

/* ---- element types, quantization, tensors ---- */

#define RT_MAX_RANK 8

/* Tensor element types: the numbers are TFLite's TensorType values. */
typedef enum rt_type {
        RT_TYPE_FLOAT32 = 0,
        RT_TYPE_FLOAT16 = 1,
        RT_TYPE_INT32 = 2,
        RT_TYPE_UINT8 = 3,
        RT_TYPE_INT64 = 4,
        RT_TYPE_STRING = 5,
        RT_TYPE_BOOL = 6,
        RT_TYPE_INT16 = 7,
        RT_TYPE_COMPLEX64 = 8,
        RT_TYPE_INT8 = 9,
        RT_TYPE_FLOAT64 = 10,
        RT_TYPE_COMPLEX128 = 11,
        RT_TYPE_UINT64 = 12,
        RT_TYPE_RESOURCE = 13,
        RT_TYPE_VARIANT = 14,
        RT_TYPE_UINT32 = 15,
        RT_TYPE_UINT16 = 16,
        RT_TYPE_INT4 = 17,
        _RT_TYPE_MAX,
} rt_type_t;

/*
 * Quantization of a tensor. n == 0: not quantized. n == 1: per-tensor.
 * n > 1: per-channel along `axis`. `scale` and `zero_point` are owned by the
 * model (or by the test that built the tensor) and outlive the interpreter.
 */
typedef struct rt_quant {
        size_t n;
        const float *scale;
        const int64_t *zero_point;
        int32_t axis;
} rt_quant_t;

/* Where a tensor's bytes live; decides who frees them. */
typedef enum rt_alloc {
        RT_ALLOC_NONE = 0,   /* no data yet (optional input absent, or not allocated) */
        RT_ALLOC_CONST,      /* read-only, points into the model mapping */
        RT_ALLOC_ARENA,      /* planned in the executor's arena */
        RT_ALLOC_PERSISTENT, /* variable/state tensors: survive across invokes */
        RT_ALLOC_DYNAMIC,    /* heap, sized at invoke time (data-dependent shapes, strings) */
} rt_alloc_t;

/* Sparse constant tensors: TFLite's SparsityParameters. */
typedef enum rt_dim_format {
        RT_DIM_DENSE = 0,
        RT_DIM_SPARSE_CSR = 1,
} rt_dim_format_t;

typedef struct rt_sparse_index {
        /* One of int32/uint16/uint8 vectors (schema union SparseIndexVector). */
        const void *data;
        uint32_t n;
        uint8_t elem_size;  /* 4, 2 or 1; 0 when absent */
} rt_sparse_index_t;

typedef struct rt_dim_metadata {
        rt_dim_format_t format;
        int32_t dense_size;
        rt_sparse_index_t array_segments;
        rt_sparse_index_t array_indices;
} rt_dim_metadata_t;

typedef struct rt_sparsity {
        const int32_t *traversal_order;
        uint32_t n_traversal_order;
        const int32_t *block_map;
        uint32_t n_block_map;
        rt_dim_metadata_t *dim_metadata;  /* owned array */
        uint32_t n_dim_metadata;
} rt_sparsity_t;

typedef struct rt_tensor {
        rt_type_t type;
        int32_t rank;
        int32_t dims[RT_MAX_RANK];
        void *data;
        size_t bytes;          /* bytes available at data */
        rt_alloc_t alloc;
        rt_quant_t quant;
        /* Per-tensor shortcut: quant.scale[0] / quant.zero_point[0], or 0 / 0. */
        float scale;
        int32_t zero_point;
        const char *name;
        bool is_variable;
        const rt_sparsity_t *sparsity;  /* non-NULL for sparse constant tensors */
} rt_tensor_t;

/* Number of elements; 1 for a scalar (rank 0). */
static inline size_t rt_tensor_count(const rt_tensor_t *t) {
        size_t c = 1;
        for (int32_t i = 0; i < t->rank; i++)
                c *= (size_t) (t->dims[i] < 0 ? 0 : t->dims[i]);
        return c;
}

/* Is the tensor's data known before invoke (a model constant)? */
static inline bool rt_tensor_is_const(const rt_tensor_t *t) {
        return t->alloc == RT_ALLOC_CONST;
}

/* ---- op codes, options ---- */

/* TFLite's BuiltinOperator numbers (schema.fbs), from ops.inc. */
typedef enum rt_builtin_op {
#define RT_OP(name, code, options) RT_BUILTIN_##name = code,
#include "ops.inc"
#undef RT_OP
        _RT_BUILTIN_MAX,
} rt_builtin_op_t;

/* Builtin op codes are TFLite's BuiltinOperator numbers; custom ops use 32. */
#define RT_OP_CUSTOM 32

/* Tags of TFLite's BuiltinOptions union (schema.fbs), from options.inc.
 * RT_OPTIONS_ANY is not a tag: the runtime uses it for ops whose options are
 * not checked (StableHLO ops, unknown codes). */
typedef enum rt_options_type {
        RT_OPTIONS_ANY = -1,
        RT_OPTIONS_NONE = 0,
#define RT_OPTIONS(tag, name, str) RT_OPTIONS_##name = tag,
#include "options.inc"
#undef RT_OPTIONS
        _RT_OPTIONS_MAX,
} rt_options_type_t;

/* Fused activation, TFLite's ActivationFunctionType numbers. */
typedef enum rt_activation {
        RT_ACT_NONE = 0,
        RT_ACT_RELU = 1,
        RT_ACT_RELU_N1_TO_1 = 2,
        RT_ACT_RELU6 = 3,
        RT_ACT_TANH = 4,
        RT_ACT_SIGN_BIT = 5,
        _RT_ACT_MAX,
} rt_activation_t;

/* Padding, TFLite's Padding numbers. */
typedef enum rt_padding {
        RT_PADDING_SAME = 0,
        RT_PADDING_VALID = 1,
} rt_padding_t;

/*
 * A node's builtin options: a FlatBuffers table inside the model's bytes
 * (the schema's <Op>Options table for the node's op). buf[0..size) is the
 * whole model; pos is the table's offset in it, 0 when the node has none.
 * The runtime verified the model, but read defensively: check every offset
 * against size before following it (plugins/faulty/faulty.c reads a field
 * this way).
 */
typedef struct fbt_table {
        const uint8_t *buf;
        size_t size;
        uint32_t pos;  /* offset of the table in buf; 0 = absent */
} fbt_table_t;

/* ---- nodes ---- */

typedef struct rt_registration rt_registration_t;  /* the runtime's kernel (opaque here) */

typedef struct rt_node {
        int32_t index;            /* position in the subgraph's operator list */
        int32_t op;               /* builtin code (rt_builtin_op_t), RT_OP_CUSTOM for custom ops */
        int32_t version;
        const char *custom_name;  /* custom ops only */
        const int32_t *inputs;    /* tensor indices, -1 = optional input absent */
        int32_t n_inputs;
        const int32_t *outputs;
        int32_t n_outputs;
        const int32_t *intermediates;
        int32_t n_intermediates;
        fbt_table_t options;      /* builtin options table (may be absent) */
        const uint8_t *custom_options;
        size_t custom_options_size;
        /* The runtime's own; a driver never touches these. */
        const rt_registration_t *reg;
        void *params;             /* parsed options; owned by the executor */
        void *user_data;          /* from reg->init; freed by reg->free */
} rt_node_t;

/* ---- acceleration settings ---- */

/* The configuration seed's Delegate enum numbers. */
typedef enum rt_delegate {
        RT_DELEGATE_NONE = 0,
        RT_DELEGATE_NNAPI = 1,
        RT_DELEGATE_GPU = 2,
        RT_DELEGATE_HEXAGON = 3,
        RT_DELEGATE_XNNPACK = 4,
        RT_DELEGATE_EDGETPU = 5,
        RT_DELEGATE_EDGETPU_CORAL = 6,
        RT_DELEGATE_PLUGIN = 100, /* ours: a plugin named in delegate_name */
        _RT_DELEGATE_MAX,
} rt_delegate_t;

/* TfLiteXNNPackDelegateOptions.flags bits (XNNPACK delegate seed). */
#define RT_XNNPACK_FLAG_QS8 0x1
#define RT_XNNPACK_FLAG_QU8 0x2
#define RT_XNNPACK_FLAG_FORCE_FP16 0x4
#define RT_XNNPACK_FLAG_SPARSE 0x8 /* ours: XNN_FLAG_HINT_SPARSE_INFERENCE */

/* The fields of TFLiteSettings the runtime honours. A plugin reads its own
 * settings from plugin_settings (the "plugin_settings" JSON object, as
 * text). */
typedef struct rt_settings {
        rt_delegate_t delegate;
        char delegate_name[64];       /* "XNNPACK", "faulty", ...; "" for NONE */
        int32_t cpu_num_threads;      /* -1 = unset */
        int32_t xnnpack_num_threads;  /* -1 = unset */
        uint32_t xnnpack_flags;       /* RT_XNNPACK_FLAG_* */
        int32_t max_delegated_partitions; /* <= 0: no limit */
        bool fallback_on_compilation_error;
        bool fallback_on_execution_error;
        char *plugin_settings;        /* owned JSON text, or NULL */
        /* Added at the end (drivers built before it read the fields above
         * unchanged): delegated groups with fewer nodes than this run on
         * the reference kernels instead; <= 1: no minimum. The runtime
         * applies it when it partitions; drivers need not look at it. */
        int32_t min_nodes_per_partition;
} rt_settings_t;

/* ---- the driver ---- */

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
 * keeps the data in its weights cache: one read-only shared mapping per
 * file for every instance and process, kept across restarts. Start keys
 * with the driver's name and a version of the layout
 * ("mydriver/v3/conv/node12"). Data handed out stays valid until unref.
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

/* The runtime's model (opaque to plugins). */
typedef struct rt_model rt_model_t;

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
 * memory: 64-byte aligned, with 16 readable bytes past inputs). A pointer
 * may change between executes.
 */
typedef struct rt_driver_group {
        const int32_t *nodes;
        int32_t n_nodes;
        const int32_t *inputs;
        int32_t n_inputs;
        const int32_t *outputs;
        int32_t n_outputs;
} rt_driver_group_t;

/*
 * Why a prepare failed (ABI 3). `node` is the graph node the failure is
 * about (an index into rt_driver_graph_t.nodes, one of group->nodes) when
 * the driver can name one, such as an operator it cannot translate; -1
 * when the failure is the group's as a whole (out of memory, the backend
 * refusing the compiled graph). `message` says why, without the node
 * ("XNNPACK: fused TANH activation not supported"): the runtime names the
 * node itself ("node 4 (ADD): ..."). With a node, the runtime compiles the
 * group's nodes before it on their own and runs that node elsewhere (the
 * FallbackSettings decide where), instead of searching for it.
 */
#define RT_DRIVER_ERROR_MAX 400

typedef struct rt_driver_error {
        int32_t node;
        char message[RT_DRIVER_ERROR_MAX];  /* NUL-terminated */
} rt_driver_error_t;

typedef struct rt_driver rt_driver_t;

struct rt_driver {
        uint32_t abi_version;  /* RT_DRIVER_ABI_VERSION; first in every version */
        const char *name;      /* "reference", "xnnpack", "faulty"; unique; second in every version */
        const char *version;
        rt_driver_type_t type;
        void *data;            /* the driver's own */

        /*
         * Measure performance relative to the reference driver (a short run of
         * a few fixed workloads). Called at most once per process by the
         * runtime, which caches the result. May be NULL (then every
         * supported type is reported at 1.0).
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
         * release. 0, or -ENOTSUP / -EINVAL / -ENODEV / -ETIME / -ENOMEM
         * with *ret_error filled in (ABI 3): the node the failure is about
         * and why (see rt_driver_error_t). The runtime hands ret_error in
         * as { -1, "" }.
         */
        int (*prepare)(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *group,
                       const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared,
                       rt_driver_error_t *ret_error);

        /* Run a prepared group: read its inputs, write its outputs in
         * g->tensors. 0 or -errno with a message in err. */
        int (*execute)(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size);

        /* Free a prepared group. NULL-safe. */
        void (*release)(void *prepared);
};

/* The entry point's type. */
typedef const rt_driver_t *(*rt_driver_entry_t)(uint32_t runtime_abi_version);
