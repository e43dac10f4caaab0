/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The partitioner (runtime-internal): split a graph's plan into maximal
 * groups of nodes one driver supports, in a valid topological order, and
 * run each group as one delegated node of the executor (like TFLite's
 * delegate kernels); the other nodes stay on the reference kernels. Tensors
 * crossing a group boundary are inputs/outputs of the delegated node, so
 * the executor's arena holds them; tensors inside a group belong to the
 * driver.
 *
 * Not thread-safe; one delegation belongs to one executor.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "driver.h"
#include "executor.h"
#include "graph.h"
#include "settings.h"

typedef struct rt_partition {
        bool delegated;    /* run by the driver (else: reference nodes) */
        int32_t *nodes;    /* node indices, in plan order */
        int32_t n_nodes;
        int32_t *inputs;   /* boundary tensors (non-constant) */
        int32_t n_inputs;
        int32_t *outputs;
        int32_t n_outputs;
        char *why;         /* reference group of a delegation: why not delegated (owned), or NULL */
        int32_t why_node;  /* the node `why` names (the first refused one), or -1 */
} rt_partition_t;

typedef struct rt_partition_set {
        rt_partition_t *v;  /* in execution order */
        int32_t n;
} rt_partition_set_t;

/*
 * Partition the current plan of `g`: supported[i] tells whether node i may
 * go to the driver. Groups are maximal: nodes are taken in dependency
 * "epochs" (all ready nodes of one kind, repeatedly), so every group only
 * depends on earlier groups, and each epoch of supported nodes is then split
 * into connected components. With max_partitions > 0 only the largest
 * max_partitions delegated groups (by node count, earlier first on ties)
 * stay delegated; the others become reference groups. 0, -EINVAL or
 * -ENOMEM; *ret filled on success (free with rt_partition_set_done()).
 */
int rt_partition_compute(const rt_graph_t *g, const bool *supported, int32_t max_partitions,
                         rt_partition_set_t *ret);

/* What the settings limit (max_delegated_partitions, and our
 * min_nodes_per_partition). */
typedef struct rt_partition_limits {
        int32_t max_partitions;   /* <= 0: no limit */
        int32_t min_nodes;        /* <= 1: no minimum */
} rt_partition_limits_t;

/*
 * rt_partition_compute() with both limits: first every delegated group
 * with fewer than min_nodes nodes becomes a reference group (a group of
 * one or two nodes between reference islands costs a hand-over to the
 * driver and back, and waking its thread pool, for little work), then
 * max_partitions keeps the largest of those left. Demoted groups keep
 * their place in the order; their nodes are not merged into neighbours.
 */
int rt_partition_compute_with(const rt_graph_t *g, const bool *supported, const rt_partition_limits_t *lim,
                              rt_partition_set_t *ret);

/* NULL-safe. */
void rt_partition_set_done(rt_partition_set_t *s);

/* Append x to the list *v of *n entries unless it is there. 0 or -ENOMEM. */
int rt__partition_list_add(int32_t **v, int32_t *n, int32_t x);

/* ---- delegation (delegation.c) ---- */

typedef struct rt_delegation rt_delegation_t;

/*
 * Ask `d` which nodes of e's graph it supports, partition, and rewrite e's
 * plan so that each delegated group runs as one node compiled by `d` at
 * rt_exec_allocate() time, with the settings' fallback rules: when `d`
 * cannot compile a group and fallback on compilation errors is allowed,
 * forced FP16 is retried in float32, then the group is split into runs
 * that `d`, else `second` (may be NULL), compiles, the nodes neither takes
 * running on the reference kernels; an execution error
 * runs the group on the reference kernels when allowed; otherwise the error
 * is returned. The settings are copied. *ret (required) must be freed with rt_delegation_free() after
 * rt_exec_free(e). If nothing is supported the plan is left alone and 0 is
 * returned. 0, -ENOMEM, or the driver's error with a message in err.
 */
int rt_delegation_apply(rt_exec_t *e, const rt_driver_t *d, const rt_driver_t *second, const rt_settings_t *s,
                        rt_delegation_t **ret, char *err, size_t err_size);

/* NULL-safe; returns NULL. Call only after the executor is gone. */
rt_delegation_t *rt_delegation_free(rt_delegation_t *del);

/* The partitions chosen (delegated and reference groups, in order). */
const rt_partition_set_t *rt_delegation_partitions(const rt_delegation_t *del);

/* The driver's reason for node i not being supported ("" if supported or
 * out of range). */
const char *rt_delegation_reason(const rt_delegation_t *del, int32_t node);

/* Number of delegated groups currently falling back to reference kernels
 * (after a compilation or execution error with fallback allowed). */
int32_t rt_delegation_fallbacks(const rt_delegation_t *del);

/* Whether partition i (rt_delegation_partitions() order) is delegated and
 * currently running on the reference kernels after an error. */
bool rt_delegation_partition_fell_back(const rt_delegation_t *del, int32_t i);

/* The driver (borrowed). */
const rt_driver_t *rt_delegation_driver(const rt_delegation_t *del);

/* The name of the driver running partition i now: the delegation's driver,
 * the second driver, or "reference" (for a split group, the driver of its
 * first compiled run; its why lists the runs). */
const char *rt_delegation_partition_driver(const rt_delegation_t *del, int32_t i);

/* Why partition i does not run as asked ("" when it does): the refused
 * node of a reference group, or the compilation/execution error of a
 * delegated group and where it ran instead. Valid until the next
 * allocation or invoke. */
const char *rt_delegation_partition_why(const rt_delegation_t *del, int32_t i);

/* The node that reason is about, as data: the first node the driver
 * refused, or the node its compilation failed on (driver ABI 3's
 * rt_driver_error_t.node, else the first node no driver took when the
 * group was split); -1 when none. */
int32_t rt_delegation_partition_node(const rt_delegation_t *del, int32_t i);
