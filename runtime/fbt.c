/* SPDX-License-Identifier: Apache-2.0 */
#include "fbt.h"

/* A FlatBuffers table starts with a soffset (int32) to its vtable, which
 * lies at table_pos - soffset. The vtable is: u16 vtable size, u16 object
 * size, then one u16 per field: the field's offset from the table start,
 * 0 when absent. */

fbt_table_t fbt_root(const uint8_t *buf, size_t size) {
        /* FlatBuffers structures live in the first 2 GiB (uoffsets are
         * 32-bit); clamping keeps every position representable in pos. */
        if (size > 0x7fffffff)
                size = 0x7fffffff;
        fbt_table_t t = { buf, size, 0 };
        if (!buf || size < 8)
                return t;
        uint32_t off = fbt__u32(buf);
        if (off == 0 || off > size - 4)
                return t;
        t.pos = off;
        return t;
}

static uint32_t vtable_pos(fbt_table_t t, uint16_t *ret_vsize) {
        if (!t.pos || t.size < 4 || t.pos > t.size - 4)
                return 0;
        int32_t soff;
        memcpy(&soff, t.buf + t.pos, 4);
        int64_t vt = (int64_t) t.pos - soff;
        if (vt < 0 || vt > (int64_t) t.size - 4)
                return 0;
        uint16_t vsize;
        memcpy(&vsize, t.buf + vt, 2);
        if (vsize < 4 || (vsize & 1) || (uint64_t) vt + vsize > t.size)
                return 0;
        *ret_vsize = vsize;
        return (uint32_t) vt;
}

uint32_t fbt_field(fbt_table_t t, unsigned id, size_t size) {
        uint16_t vsize;
        uint32_t vt = vtable_pos(t, &vsize);
        if (!vt)  /* absent table, or a vtable outside the buffer */
                return 0;
        size_t slot = 4 + 2 * (size_t) id;
        if (slot + 2 > vsize)
                return 0;
        uint16_t foff;
        memcpy(&foff, t.buf + vt + slot, 2);
        if (!foff)
                return 0;
        uint64_t at = (uint64_t) t.pos + foff;
        if (at + size > t.size)
                return 0;
        return (uint32_t) at;
}

bool fbt_has(fbt_table_t t, unsigned id) {
        return fbt_field(t, id, 1) != 0;
}

#define FBT_SCALAR(name, type)                                      \
        type fbt_##name(fbt_table_t t, unsigned id, type def) {     \
                uint32_t at = fbt_field(t, id, sizeof(type));       \
                if (!at)                                            \
                        return def;                                 \
                type v;                                             \
                memcpy(&v, t.buf + at, sizeof(type));               \
                return v;                                           \
        }

FBT_SCALAR(i8, int8_t)
FBT_SCALAR(u8, uint8_t)
FBT_SCALAR(i16, int16_t)
FBT_SCALAR(u16, uint16_t)
FBT_SCALAR(i32, int32_t)
FBT_SCALAR(u32, uint32_t)
FBT_SCALAR(i64, int64_t)
FBT_SCALAR(u64, uint64_t)
FBT_SCALAR(f32, float)
FBT_SCALAR(f64, double)

bool fbt_bool(fbt_table_t t, unsigned id, bool def) {
        uint32_t at = fbt_field(t, id, 1);
        return at ? t.buf[at] != 0 : def;
}

/* Follow a uoffset stored at absolute position `at`. */
static uint32_t follow(fbt_table_t t, uint32_t at) {
        if (!at || (uint64_t) at + 4 > t.size)
                return 0;
        uint32_t off = fbt__u32(t.buf + at);
        uint64_t target = (uint64_t) at + off;
        if (off == 0 || target + 4 > t.size)
                return 0;
        return (uint32_t) target;
}

fbt_table_t fbt_table(fbt_table_t t, unsigned id) {
        fbt_table_t r = { t.buf, t.size, 0 };
        r.pos = follow(t, fbt_field(t, id, 4));
        return r;
}

static fbt_vec_t vector_at(fbt_table_t t, uint32_t pos, size_t elem_size) {
        fbt_vec_t v = { NULL, 0, 0 };
        if (!pos)
                return v;
        uint32_t n = fbt__u32(t.buf + pos);
        uint64_t end = (uint64_t) pos + 4 + (uint64_t) n * elem_size;
        if (end > t.size)
                return v;
        v.data = t.buf + pos + 4;
        v.n = n;
        v.pos = pos;
        return v;
}

fbt_vec_t fbt_vector(fbt_table_t t, unsigned id, size_t elem_size) {
        return vector_at(t, follow(t, fbt_field(t, id, 4)), elem_size);
}

fbt_table_t fbt_vector_table(fbt_table_t t, fbt_vec_t v, uint32_t i) {
        fbt_table_t r = { t.buf, t.size, 0 };
        if (i >= v.n)
                return r;
        r.pos = follow(t, v.pos + 4 + 4 * i);
        return r;
}

static const char *string_at(fbt_table_t t, uint32_t pos, uint32_t *ret_len) {
        if (!pos)
                return NULL;
        uint32_t n = fbt__u32(t.buf + pos);
        if ((uint64_t) pos + 4 + n > t.size)
                return NULL;
        if (ret_len)
                *ret_len = n;
        return (const char *) t.buf + pos + 4;
}

const char *fbt_vector_string(fbt_table_t t, fbt_vec_t v, uint32_t i, uint32_t *ret_len) {
        if (i >= v.n)
                return NULL;
        return string_at(t, follow(t, v.pos + 4 + 4 * i), ret_len);
}

const char *fbt_string(fbt_table_t t, unsigned id, uint32_t *ret_len) {
        return string_at(t, follow(t, fbt_field(t, id, 4)), ret_len);
}
