/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The op registry: maps builtin op codes and custom op names (and op
 * versions) to registrations. Builtin kernels and custom ops share the one
 * rt_registration_t interface (kernel.h).
 *
 *   rt_resolver_t *r = rt_resolver_new();
 *   rt_kernels_register_builtins(r);          // every builtin kernel
 *   rt_resolver_add(r, &my_custom_op);        // reg->op == RT_OP_CUSTOM
 *   const rt_registration_t *reg = rt_resolver_find(r, 3, NULL, 1);
 *
 * rt_resolver_add() (declared in kernel.h) accepts every version of the op;
 * rt_resolver_add_versions() limits a registration to a version range. A
 * later registration for the same op (and overlapping versions) takes
 * precedence over an earlier one, so an embedding program can override a
 * builtin.
 *
 * Registrations are borrowed: they must outlive the resolver (they are
 * usually static const tables). A resolver is filled once and then only read;
 * reads may happen from several threads at once, additions may not.
 */
#pragma once

#include <stdint.h>

#include "kernel.h"

/* A new empty resolver, or NULL when out of memory. Free with rt_resolver_free(). */
rt_resolver_t *rt_resolver_new(void);

/* NULL-safe; returns NULL. Does not touch the registrations. */
rt_resolver_t *rt_resolver_free(rt_resolver_t *r);

/*
 * Add `reg` for op versions min_version..max_version (inclusive). reg->op is
 * the builtin code, or RT_OP_CUSTOM with reg->name as the custom op name.
 * Returns 0, -EINVAL (NULL argument, custom op without a name, negative op,
 * min > max) or -ENOMEM.
 */
int rt_resolver_add_versions(rt_resolver_t *r, const rt_registration_t *reg, int32_t min_version,
                             int32_t max_version);

/*
 * The registration for builtin code `op` (custom_name ignored), or for the
 * custom op `custom_name` when op == RT_OP_CUSTOM, that accepts `version`.
 * NULL when there is none. A version <= 0 is treated as 1.
 */
const rt_registration_t *rt_resolver_find(const rt_resolver_t *r, int32_t op, const char *custom_name,
                                          int32_t version);

/*
 * Whether any registration exists for the op regardless of version (tells
 * "unknown op" apart from "unsupported version").
 */
bool rt_resolver_has_op(const rt_resolver_t *r, int32_t op, const char *custom_name);

/*
 * Consult `fallback` (borrowed, must outlive r) when r itself has no
 * registration for an op. 0 or -EINVAL.
 */
int rt_resolver_set_fallback(rt_resolver_t *r, const rt_resolver_t *fallback);

/*
 * The process-wide resolver with every builtin kernel
 * (rt_kernels_register_builtins()), built on first use; never freed,
 * read-only, safe from any thread. NULL when out of memory.
 */
const rt_resolver_t *rt_resolver_builtins(void);

/* Number of registrations added so far (every add counts). */
size_t rt_resolver_size(const rt_resolver_t *r);
