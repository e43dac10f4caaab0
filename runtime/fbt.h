/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * fbt: bounds-checked reads of FlatBuffers tables.
 *
 * Every accessor checks every offset it follows against the buffer, so a
 * read can never leave the buffer even on data the verifier has not seen;
 * a field that is absent or would not fit yields the default / an empty
 * result. The verifier (verify.c) rejects malformed files up front with a
 * message; these accessors are the second line of defence.
 *
 * FlatBuffers are little-endian; values are read with memcpy, so unaligned
 * data is harmless. Field ids are the schema's field order (0-based).
 *
 * All functions are pure and thread-safe; nothing is allocated.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "accel/driver.h"

/* fbt_table_t (a table: buffer, size, offset) is part of the driver ABI,
 * since a node's options are one. */
typedef struct fbt_vec {
        const uint8_t *data;  /* first element (after the length word) */
        uint32_t n;           /* element count; 0 when absent */
        uint32_t pos;         /* offset of the length word in buf */
} fbt_vec_t;

static inline uint32_t fbt__u32(const uint8_t *p) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
}

/* The root table of a buffer (offset at byte 0), or an absent table. The
 * table view covers at most the first 2 GiB of the buffer. */
fbt_table_t fbt_root(const uint8_t *buf, size_t size);

static inline bool fbt_present(fbt_table_t t) {
        return t.pos != 0;
}

/* Absolute offset of field `id`'s inline data if present and `size` bytes of
 * it fit in the buffer; 0 otherwise. */
uint32_t fbt_field(fbt_table_t t, unsigned id, size_t size);

bool fbt_has(fbt_table_t t, unsigned id);
int8_t fbt_i8(fbt_table_t t, unsigned id, int8_t def);
uint8_t fbt_u8(fbt_table_t t, unsigned id, uint8_t def);
int16_t fbt_i16(fbt_table_t t, unsigned id, int16_t def);
uint16_t fbt_u16(fbt_table_t t, unsigned id, uint16_t def);
int32_t fbt_i32(fbt_table_t t, unsigned id, int32_t def);
uint32_t fbt_u32(fbt_table_t t, unsigned id, uint32_t def);
int64_t fbt_i64(fbt_table_t t, unsigned id, int64_t def);
uint64_t fbt_u64(fbt_table_t t, unsigned id, uint64_t def);
float fbt_f32(fbt_table_t t, unsigned id, float def);
double fbt_f64(fbt_table_t t, unsigned id, double def);
bool fbt_bool(fbt_table_t t, unsigned id, bool def);

/* A sub-table (field holds a uoffset to it). */
fbt_table_t fbt_table(fbt_table_t t, unsigned id);

/* A vector of `elem_size`-byte scalars or structs. n == 0 if absent or if it
 * does not fit in the buffer. */
fbt_vec_t fbt_vector(fbt_table_t t, unsigned id, size_t elem_size);

/* Element i of a vector of tables (an absent table if out of range). */
fbt_table_t fbt_vector_table(fbt_table_t t, fbt_vec_t v, uint32_t i);

/* Element i of a vector of strings. */
const char *fbt_vector_string(fbt_table_t t, fbt_vec_t v, uint32_t i, uint32_t *ret_len);

/* A string field: pointer to its bytes (NUL-terminated when the verifier
 * passed) and its length, or NULL if absent / malformed. */
const char *fbt_string(fbt_table_t t, unsigned id, uint32_t *ret_len);

static inline int32_t fbt_vec_i32(fbt_vec_t v, uint32_t i) {
        int32_t x = 0;
        if (i < v.n)
                memcpy(&x, v.data + (size_t) i * 4, 4);
        return x;
}

static inline int64_t fbt_vec_i64(fbt_vec_t v, uint32_t i) {
        int64_t x = 0;
        if (i < v.n)
                memcpy(&x, v.data + (size_t) i * 8, 8);
        return x;
}

static inline float fbt_vec_f32(fbt_vec_t v, uint32_t i) {
        float x = 0;
        if (i < v.n)
                memcpy(&x, v.data + (size_t) i * 4, 4);
        return x;
}

static inline uint8_t fbt_vec_u8(fbt_vec_t v, uint32_t i) {
        return i < v.n ? v.data[i] : 0;
}
