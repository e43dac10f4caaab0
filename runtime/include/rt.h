/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The in-process runtime API, shaped like the TensorFlow Lite C API
 * (TfLiteModel / TfLiteInterpreterOptions / TfLiteInterpreter):
 *
 *   rt_model_t *m;                        // model.h: verified reader
 *   rt_model_load_file("m.tflite", &m, err, sizeof(err));
 *   rt_interp_options_t *o = rt_interp_options_new();
 *   rt_interp_options_set_num_threads(o, 2);
 *   rt_interp_t *it;
 *   rt_interp_create(m, o, &it, err, sizeof(err));
 *   rt_interp_options_free(o);            // the interpreter keeps what it needs
 *   rt_interp_allocate_tensors(it);
 *   rt_interp_copy_in(it, 0, input, input_bytes);
 *   rt_interp_invoke(it);
 *   rt_interp_copy_out(it, 0, output, output_bytes);
 *   rt_interp_free(it);
 *   rt_model_free(m);                     // after every interpreter using it
 *
 * Errors: functions return 0 or a negative errno; the sentence describing
 * the last failure is rt_interp_last_error() and is also passed to the error
 * reporter set in the options. Unknown ops fail rt_interp_create() with a
 * message that names the op and its node ("node 0: unresolved custom op
 * 'fake-op-double'").
 *
 * Threads: a model may be shared by many interpreters on many threads; one
 * interpreter must be used by one thread at a time. Options are not touched
 * after rt_interp_create() returns.
 *
 * Public: this header, model.h, settings.h and <accel/driver.h> in
 * runtime/include/ are the in-process API runtime_dep exports (client/,
 * bench/, outside users). rt_tensor_t and the other data types come from
 * <accel/driver.h>. Custom ops (rt_interp_options_add_custom_op() and the
 * two after it) take the kernel API's types, which stay internal
 * (runtime/kernel.h, through runtime_internal_dep): a public caller can
 * only name them.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/driver.h"
#include "model.h"
#include "settings.h"

/* Custom kernels and resolvers are the runtime's internal kernel API
 * (runtime/kernel.h, runtime/resolver.h); here they are only named. */
typedef struct rt_resolver rt_resolver_t;

typedef struct rt_interp rt_interp_t;
typedef struct rt_interp_options rt_interp_options_t;

/* Receives every error message of an interpreter (like TfLiteErrorReporter). */
typedef void (*rt_error_reporter_t)(void *user_data, const char *format, va_list args);

/* Per-node timing, one entry per executed node in execution order. */
typedef struct rt_node_profile {
        int32_t node;         /* node index in the subgraph */
        const char *op_name;  /* "CONV_2D" or the custom op's name; lives as long as the interpreter */
        uint64_t last_us;     /* microseconds in the last invoke */
        uint64_t total_us;    /* sum over the invokes since profiling was enabled */
        uint64_t runs;        /* number of those invokes */
} rt_node_profile_t;

/* ---- options ---- */

/* New options with defaults (num_threads -1 = let the runtime choose, no
 * profiling, builtin ops). NULL when out of memory. */
rt_interp_options_t *rt_interp_options_new(void);

/* NULL-safe; returns NULL. */
rt_interp_options_t *rt_interp_options_free(rt_interp_options_t *o);

/* Threads for drivers that use them (the reference kernels run on the
 * calling thread). n >= 1, or -1 for the default. 0 or -EINVAL. */
int rt_interp_options_set_num_threads(rt_interp_options_t *o, int32_t n);

/* Route error messages to `reporter` (NULL: none). `user_data` is passed
 * through and must outlive interpreters created with these options. */
int rt_interp_options_set_error_reporter(rt_interp_options_t *o, rt_error_reporter_t reporter,
                                         void *user_data);

/* Record per-node timings on every invoke (see rt_interp_profile()). */
int rt_interp_options_enable_profiling(rt_interp_options_t *o, bool enable);

/*
 * Register a custom op `name` for versions min_version..max_version
 * (TfLiteInterpreterOptionsAddCustomOp). The registration is copied (its op
 * becomes RT_OP_CUSTOM and its name `name`); the functions it points to must
 * stay loaded while interpreters use them. Custom ops take precedence over
 * builtins of the same name. 0, -EINVAL (NULL, empty name, bad range) or
 * -ENOMEM.
 */
int rt_interp_options_add_custom_op(rt_interp_options_t *o, const char *name,
                                    const rt_registration_t *reg, int32_t min_version,
                                    int32_t max_version);

/* The same for builtin op code `op`, overriding the builtin kernel. */
int rt_interp_options_add_builtin_op(rt_interp_options_t *o, int32_t op, const rt_registration_t *reg,
                                     int32_t min_version, int32_t max_version);

/* Resolve ops with `r` instead of the builtin kernels (custom ops added to
 * the options still come first). `r` is borrowed for rt_interp_create(). */
int rt_interp_options_set_resolver(rt_interp_options_t *o, const rt_resolver_t *r);

/*
 * Acceleration settings (settings.h, the seed's TFLiteSettings), copied.
 * At rt_interp_create(): delegate NONE runs everything on the reference
 * kernels; XNNPACK hands the groups of nodes XNNPACK supports to the
 * XNNPACK driver; another delegate goes to the registered driver of that
 * name (plugins are loaded once from $ACCELD_PLUGIN_DIR or the configured
 * plugin directory when needed), and rt_interp_create() fails with -ENODEV
 * ("DEVICE_UNAVAILABLE: ...") when there is none. Thread counts come from
 * the settings, else from rt_interp_options_set_num_threads(). NULL clears.
 * 0, -EINVAL or -ENOMEM.
 */
int rt_interp_options_set_settings(rt_interp_options_t *o, const rt_settings_t *s);

/*
 * The weights cache (wcache.h, borrowed; must outlive the interpreters) and
 * the key of the model they are built from (its SHA-256 in hex): constants
 * the runtime derives from the model (dequantized and densified weights)
 * are then mapped from the cache, shared by every interpreter and process,
 * and computed only on the first miss. NULL c turns it off. 0 or -EINVAL.
 */
typedef struct rt_wcache rt_wcache_t;
int rt_interp_options_set_weights_cache(rt_interp_options_t *o, rt_wcache_t *c, const char *model_key);

/*
 * Keep the tensor arena of subgraph 0 in shared memory (a memfd registered
 * in runtime/shm.h), so that a driver running in another process (acceld's
 * driver hosts) reads and writes the tensors in place instead of through
 * copies. Off by default. 0 or -EINVAL.
 */
int rt_interp_options_set_shared_arena(rt_interp_options_t *o, bool shared);

/*
 * Keep every tensor's contents after an invoke, like TFLite's
 * InterpreterOptions::SetPreserveAllTensors (Python's
 * experimental_preserve_all_tensors): the arena gives each tensor of the
 * plan bytes of its own instead of reusing them once a tensor is dead, so
 * rt_interp_tensor() shows every intermediate value of the last invoke.
 * Costs memory (the arena becomes the sum of the tensors). Tensors inside a
 * group run by a delegate's driver are that driver's business and get no
 * storage (as in TFLite): run on the reference kernels (delegate NONE) to
 * see them all. Off by default. 0 or -EINVAL.
 */
int rt_interp_options_set_preserve_all_tensors(rt_interp_options_t *o, bool preserve);

/* ---- interpreter ---- */

/*
 * Create an interpreter for subgraph 0 of `model`: resolves every op,
 * parses options, runs kernel init. `model` is borrowed and must outlive the
 * interpreter; `options` may be NULL and may be freed afterwards. Tensors
 * still need rt_interp_allocate_tensors(). Returns 0, -EINVAL (unknown op,
 * bad model data; message in err and to the reporter), -ENOTSUP (op version
 * not supported) or -ENOMEM. *ret is written only on success.
 *
 * Control flow: every subgraph that subgraph 0 reaches through IF, WHILE
 * and CALL_ONCE options gets its own graph and tensors (allocated when first
 * run, re-allocated when called with other input shapes), built here, so
 * their ops are resolved now too. A subgraph index out of range or a
 * subgraph that calls itself (directly or through others) is -EINVAL with
 * a message ("subgraph 0 node 1 (IF): calls subgraph 0, which is already on
 * the call path ..."). Resource variables and hash tables belong to the
 * running state (the interpreter's own unless a rt_interp_state_t is
 * swapped in): shared by its subgraphs, kept across invokes and
 * allocations, freed with it.
 */
int rt_interp_create(const rt_model_t *model, const rt_interp_options_t *options, rt_interp_t **ret,
                     char *err, size_t err_size);

/* NULL-safe; returns NULL. */
rt_interp_t *rt_interp_free(rt_interp_t *it);

int32_t rt_interp_input_count(const rt_interp_t *it);
int32_t rt_interp_output_count(const rt_interp_t *it);

/*
 * Input / output tensor i (model order): name, type, rank, dims,
 * quantization, bytes and data. Owned by the interpreter; the struct stays
 * valid for its lifetime, its shape and data change with resize, allocate
 * and (for outputs with data-dependent shapes) invoke. NULL when out of
 * range. String tensors hold TFLite's serialized layout (int32 count,
 * int32 offsets[count + 1] from the buffer start, then the bytes).
 */
const rt_tensor_t *rt_interp_input_tensor(const rt_interp_t *it, int32_t i);
const rt_tensor_t *rt_interp_output_tensor(const rt_interp_t *it, int32_t i);

/* The shape signature of input i (-1 = dynamic dimension); falls back to
 * the declared shape. *ret_rank gets its rank. NULL when out of range. */
const int32_t *rt_interp_input_signature(const rt_interp_t *it, int32_t i, int32_t *ret_rank);

/*
 * Set the shape of input i; dimensions that are -1 in its shape_signature
 * take the given value, fixed ones must match when the model declares a
 * signature with dynamic dimensions. All shapes are re-derived at the next
 * rt_interp_allocate_tensors(), which must be called before invoke.
 * 0 or -EINVAL (message).
 */
int rt_interp_resize_input(rt_interp_t *it, int32_t i, int32_t rank, const int32_t *dims);

/* Prepare every node (shape inference), plan the arena, reset variable
 * tensors. 0 or a negative errno with a message naming the node. */
int rt_interp_allocate_tensors(rt_interp_t *it);

/*
 * Copy `size` bytes into input i. size must equal the tensor's byte size
 * (-EINVAL with a message otherwise); for string inputs `data` is the
 * serialized layout, checked for consistency and for one string per element.
 * -EINVAL also before rt_interp_allocate_tensors().
 */
int rt_interp_copy_in(rt_interp_t *it, int32_t i, const void *data, size_t size);

/* Copy output i out; size must equal its byte size. 0 or -EINVAL (also
 * when tensors are not allocated, e.g. after a resize). */
int rt_interp_copy_out(const rt_interp_t *it, int32_t i, void *data, size_t size);

/* Direct pointers to the tensors' bytes (valid until the next resize,
 * allocate, or for dynamic outputs the next invoke); NULL before allocate,
 * for out-of-range indices, and for dynamic outputs before invoke. */
void *rt_interp_input_data(rt_interp_t *it, int32_t i);
const void *rt_interp_output_data(const rt_interp_t *it, int32_t i);

/*
 * Every tensor of subgraph 0 by its model index (TFLite's
 * Interpreter::tensor(i)), inputs and outputs included: 0 ..
 * rt_interp_tensor_count() - 1. The struct is owned by the interpreter and
 * valid for its lifetime; NULL when out of range. Its data is NULL for a
 * tensor no node of the execution plan uses (e.g. one inside a delegated
 * group) or before rt_interp_allocate_tensors(); constants point into the
 * model (read-only). An intermediate's bytes hold its value of the last
 * invoke only with rt_interp_options_set_preserve_all_tensors(); otherwise
 * the arena reuses them for later tensors, as TFLite's does.
 */
int32_t rt_interp_tensor_count(const rt_interp_t *it);
const rt_tensor_t *rt_interp_tensor(const rt_interp_t *it, int32_t t);

/* Writable bytes of tensor t (valid as rt_interp_input_data()'s); NULL for
 * constants, before allocate, out of range, or a tensor without storage. */
void *rt_interp_tensor_data(rt_interp_t *it, int32_t t);

/*
 * Copy `size` bytes into tensor t, any non-constant tensor (an input, an
 * output, an intermediate, a variable), with rt_interp_copy_in()'s rules:
 * the exact byte size, string tensors in the serialized layout (checked).
 * A value written into an intermediate or an output is overwritten by the
 * next invoke. 0 or -EINVAL with a message (constant, no storage, wrong
 * size, not allocated, out of range), -ENOMEM.
 */
int rt_interp_tensor_copy_in(rt_interp_t *it, int32_t t, const void *data, size_t size);

/* ---- caller buffers (zero-copy inputs and outputs) ---- */

/* Alignment every caller buffer must have (the arena's; enough for every
 * kernel and for XNNPACK). */
#define RT_BUFFER_ALIGN 64
/* Bytes a caller buffer needs past the tensor's end when a node reads the
 * tensor: XNNPACK may read up to XNN_EXTRA_BYTES (16) past an input. */
#define RT_BUFFER_SLACK 16

/* Which side of the graph an index counts. */
typedef enum rt_io {
        RT_IO_INPUT,
        RT_IO_OUTPUT,
        _RT_IO_MAX,
} rt_io_t;

/*
 * Make graph input (RT_IO_INPUT) or output (RT_IO_OUTPUT) `i` use caller
 * memory `data` of `size` bytes instead of the arena, like TFLite's
 * SetCustomAllocationForTensor. Kernels and delegated partitions (XNNPACK
 * runs directly on the pointer; a changed pointer re-runs its cheap
 * xnn_setup_runtime) read inputs from and write outputs to `data`;
 * rt_interp_copy_in/out and rt_interp_input/output_data() use it too.
 *
 * Requirements (else -EINVAL with a message): `data` RT_BUFFER_ALIGN-aligned;
 * size >= rt_interp_tensor_buffer_bytes() (the tensor's bytes, plus
 * RT_BUFFER_SLACK readable bytes for inputs and for outputs that a later node
 * reads; the slack is read, never written, and does not affect results);
 * not a string, constant, variable or dynamic (sized at invoke) tensor; not
 * a tensor that is both a graph input and a graph output.
 *
 * Called after rt_interp_allocate_tensors() it takes effect at once (the
 * tensor's arena slot stays reserved, so switching pointers between invokes
 * costs nothing). A tensor still bound at the next allocate leaves the arena
 * (its graph-long slot is not planned); allocate fails with -EINVAL when the
 * new shape no longer fits the buffer or the tensor became dynamic.
 * data NULL (size ignored) resets the tensor to the arena: at once when it
 * has a slot, else rt_interp_allocate_tensors() is needed again (as after a
 * resize). The memory is borrowed: it must stay valid and must not be
 * touched by others while an invoke runs, until reset or rt_interp_free().
 * 0 or -EINVAL.
 */
int rt_interp_set_tensor_buffer(rt_interp_t *it, rt_io_t io, int32_t i, void *data, size_t size);

/* The minimum `size` rt_interp_set_tensor_buffer() accepts for input or
 * output i with its current shape; 0 when out of range. */
size_t rt_interp_tensor_buffer_bytes(const rt_interp_t *it, rt_io_t io, int32_t i);

/* Run the graph once. 0, -EINVAL if tensors are not allocated, or the first
 * failing kernel's error (message names the node). */
int rt_interp_invoke(rt_interp_t *it);

/* The last error message; "" if none. Owned by the interpreter, valid until
 * the next call on it. NULL-safe (returns ""). */
const char *rt_interp_last_error(const rt_interp_t *it);

/* ---- state: variables kept between invokes ---- */

/*
 * Whether the model keeps state between invokes: variable tensors (the
 * LSTM / RNN / SVDF families' is_variable inputs), resource variables
 * (VAR_HANDLE, ASSIGN_VARIABLE, READ_VARIABLE), hash tables or CALL_ONCE.
 * Known from rt_interp_create() on. NULL: false.
 */
bool rt_interp_has_state(const rt_interp_t *it);

/*
 * Reset the variable tensors of the running state (the interpreter's own,
 * or a swapped-in rt_interp_state_t) to their initial values, like TFLite's
 * ResetVariableTensors: zero (int8: the zero point), or the tensor's buffer
 * when the model gives one. Resource variables, hash tables and CALL_ONCE
 * are left as they are, as in TFLite. 0 or -EINVAL (NULL).
 */
int rt_interp_reset_variables(rt_interp_t *it);

/*
 * A state: everything a stateful model keeps between invokes (variable
 * tensors of every subgraph, resource variables, hash tables, CALL_ONCE's
 * flags), held apart from any interpreter, so that interpreters of one
 * model can be pooled and shared by clients that each keep their own
 * state, as each would with a TFLite interpreter of its own. A new state
 * is fresh: exactly what a new interpreter starts with (variable tensors
 * at their initial values, no resource variables, CALL_ONCE not run); it
 * takes its memory at its first swap. Owned by the caller; NULL when out
 * of memory.
 */
typedef struct rt_interp_state rt_interp_state_t;
rt_interp_state_t *rt_interp_state_new(void);

/* NULL-safe; returns NULL. Must not be swapped into an interpreter. */
rt_interp_state_t *rt_interp_state_free(rt_interp_state_t *st);

/* Make `st` fresh again (frees what it holds). Must not be swapped in. */
void rt_interp_state_reset(rt_interp_state_t *st);

/*
 * Swap `st` into `it` (its invokes then read and update `st`: variable
 * tensors, resource variables, CALL_ONCE) or, when `st` is the one swapped
 * in, back out (the interpreter runs on its own state again). Pointers are
 * exchanged, nothing is copied; a state's variable tensor whose size does
 * not match the tensor's current shape (a fresh state, a resize) is set to
 * its initial value first, as allocating does. The usual use, around an
 * invoke on a pooled interpreter:
 *
 *   rt_interp_state_swap(it, client_state);   // in
 *   rt_interp_invoke(it);
 *   rt_interp_state_swap(it, client_state);   // out
 *
 * rt_interp_allocate_tensors() while a state is in resets that state's
 * variable tensors (as it would the interpreter's own). A state is for
 * interpreters of one model (the first swap binds it), used by one
 * interpreter at a time. rt_interp_free() swaps a state still in back out.
 * 0, -EINVAL (NULL, another state is in, a state of another model) or
 * -ENOMEM (nothing swapped).
 */
int rt_interp_state_swap(rt_interp_t *it, rt_interp_state_t *st);

/* Bytes a state holds (variable tensors, resource variables, kernels' objects). */
size_t rt_interp_state_bytes(const rt_interp_state_t *st);

/* Bytes of the tensor arena planned by the last allocate (0 before). */
size_t rt_interp_arena_bytes(const rt_interp_t *it);

/* The thread count from the options (-1 = default). */
int32_t rt_interp_num_threads(const rt_interp_t *it);

/* Turn per-node timing on or off after creation. 0 or -EINVAL. */
int rt_interp_enable_profiling(rt_interp_t *it, bool enable);

/* Per-node timings (owned by the interpreter, valid until the next invoke
 * or free); returns the number of entries, 0 without profiling. */
size_t rt_interp_profile(const rt_interp_t *it, const rt_node_profile_t **ret);

/* The model the interpreter runs (borrowed). */
const rt_model_t *rt_interp_model(const rt_interp_t *it);

/* One group of the execution plan: the driver running it ("reference",
 * "xnnpack", a plugin's name) and how many model nodes it holds. */
typedef struct rt_interp_partition {
        const char *driver;  /* lives as long as the driver */
        int32_t nodes;
        /* Why this group does not run as the settings asked, or "": the
         * node the delegate refused ("node 4 (ADD): XNNPACK: ..."), or the
         * compilation/execution error and what ran instead. Valid until the
         * interpreter's next allocation or invoke, or its end. */
        const char *why;
        /* The node `why` is about, as data, or -1: the first node the
         * delegate refused, or the node its driver's compilation failed on
         * (driver ABI 3 reports it), else the first node no driver took
         * when the group was split. */
        int32_t node;
} rt_interp_partition_t;

/*
 * Fill up to `max` entries of ret (may be NULL to count) with the plan's
 * groups in execution order and return how many there are (one "reference"
 * group when nothing is delegated). A delegated group that fell back to the
 * reference kernels is reported as "reference".
 */
size_t rt_interp_partitions(const rt_interp_t *it, rt_interp_partition_t *ret, size_t max);

/*
 * What ran instead of the delegate the settings asked for, and why, when
 * the FallbackSettings let it fall back before any group was compiled
 * ("no driver provides delegate GPU; ran on xnnpack"), else "". Valid as
 * long as the interpreter.
 */
const char *rt_interp_delegation_note(const rt_interp_t *it);

/* Why the delegate's driver refused node `node` ("" when it accepted it,
 * or without a delegate). Valid as long as the interpreter. */
const char *rt_interp_unsupported_reason(const rt_interp_t *it, int32_t node);

/*
 * Check every node of subgraph `subgraph` of `m` against the builtin
 * kernels without building anything: one message per node that does not
 * resolve ("node 3: unresolved custom op 'x'") through `cb` (may be NULL).
 * Returns how many nodes do not resolve, -EINVAL for a bad subgraph index
 * or -ENOMEM.
 */
int rt_model_check_ops(const rt_model_t *m, int32_t subgraph,
                       void (*cb)(void *user, int32_t node, const char *message), void *user);
