/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small bounds-checked FlexBuffers reader: just enough to look up scalar
 * values by key in a root map, which is how TFLite stores the options of
 * custom ops such as TFLite_Detection_PostProcess.
 *
 * Layout (little-endian): the buffer ends with the root value, its packed
 * type byte and the root's byte width. A map value is an offset back to its
 * elements; before the elements lie the keys vector offset, the keys vector
 * byte width and the element count; after the elements lie one packed type
 * byte per element. Keys are offsets to NUL-terminated strings.
 */
#include <string.h>

#include "sequence.h"

enum {
        FLEX_NULL = 0,
        FLEX_INT = 1,
        FLEX_UINT = 2,
        FLEX_FLOAT = 3,
        FLEX_KEY = 4,
        FLEX_STRING = 5,
        FLEX_INDIRECT_INT = 6,
        FLEX_INDIRECT_UINT = 7,
        FLEX_INDIRECT_FLOAT = 8,
        FLEX_MAP = 9,
        FLEX_BOOL = 26,
};

typedef struct flex_buf {
        const uint8_t *p;
        size_t size;
} flex_buf_t;

static bool flex_in(const flex_buf_t *b, uint64_t off, uint64_t len) {
        return off <= b->size && len <= b->size - off;
}

static bool flex_uint(const flex_buf_t *b, uint64_t off, unsigned width, uint64_t *ret) {
        if ((width != 1 && width != 2 && width != 4 && width != 8) || !flex_in(b, off, width))
                return false;
        uint64_t v = 0;
        for (unsigned i = 0; i < width; i++)
                v |= (uint64_t) b->p[off + i] << (8 * i);
        *ret = v;
        return true;
}

static bool flex_int(const flex_buf_t *b, uint64_t off, unsigned width, int64_t *ret) {
        uint64_t u;
        if (!flex_uint(b, off, width, &u))
                return false;
        if (width < 8 && (u >> (8 * width - 1)) & 1)
                u |= ~0ull << (8 * width);
        *ret = (int64_t) u;
        return true;
}

static bool flex_float(const flex_buf_t *b, uint64_t off, unsigned width, double *ret) {
        uint64_t u;
        if (!flex_uint(b, off, width, &u))
                return false;
        if (width == 4) {
                uint32_t u32 = (uint32_t) u;
                float f;
                memcpy(&f, &u32, 4);
                *ret = f;
                return true;
        }
        if (width == 8) {
                double d;
                memcpy(&d, &u, 8);
                *ret = d;
                return true;
        }
        return false;
}

/* Follow an offset stored at `off` (width bytes) backwards. */
static bool flex_indirect(const flex_buf_t *b, uint64_t off, unsigned width, uint64_t *ret) {
        uint64_t rel;
        if (!flex_uint(b, off, width, &rel) || rel > off)
                return false;
        *ret = off - rel;
        return true;
}

typedef struct flex_value {
        int type;
        bool is_int;
        int64_t i;
        double d;
} flex_value_t;

/* Read the scalar at `off` with parent width `pw` and packed type `packed`. */
static int flex_read_scalar(const flex_buf_t *b, uint64_t off, unsigned pw, uint8_t packed, flex_value_t *v) {
        int type = packed >> 2;
        unsigned cw = 1u << (packed & 3);
        uint64_t at;
        uint64_t u;
        v->type = type;
        switch (type) {
        case FLEX_NULL:
                return -ENOENT;
        case FLEX_INT:
                if (!flex_int(b, off, pw, &v->i))
                        return -EINVAL;
                v->is_int = true;
                v->d = (double) v->i;
                return 0;
        case FLEX_UINT:
        case FLEX_BOOL:
                if (!flex_uint(b, off, pw, &u))
                        return -EINVAL;
                v->is_int = true;
                v->i = (int64_t) u;
                v->d = (double) u;
                return 0;
        case FLEX_FLOAT:
                if (!flex_float(b, off, pw, &v->d))
                        return -EINVAL;
                v->i = (int64_t) v->d;
                return 0;
        case FLEX_INDIRECT_INT:
                if (!flex_indirect(b, off, pw, &at) || !flex_int(b, at, cw, &v->i))
                        return -EINVAL;
                v->is_int = true;
                v->d = (double) v->i;
                return 0;
        case FLEX_INDIRECT_UINT:
                if (!flex_indirect(b, off, pw, &at) || !flex_uint(b, at, cw, &u))
                        return -EINVAL;
                v->is_int = true;
                v->i = (int64_t) u;
                v->d = (double) u;
                return 0;
        case FLEX_INDIRECT_FLOAT:
                if (!flex_indirect(b, off, pw, &at) || !flex_float(b, at, cw, &v->d))
                        return -EINVAL;
                v->i = (int64_t) v->d;
                return 0;
        default:
                return -EINVAL;  /* strings, vectors, maps: not a number */
        }
}

static bool flex_key_equals(const flex_buf_t *b, uint64_t at, const char *key) {
        size_t n = strlen(key);
        if (!flex_in(b, at, n + 1))
                return false;
        return memcmp(b->p + at, key, n) == 0 && b->p[at + n] == 0;
}

static int flex_map_lookup(const uint8_t *buf, size_t size, const char *key, flex_value_t *ret) {
        flex_buf_t b = { buf, size };
        if (!buf || size < 3)
                return -EINVAL;
        unsigned root_width = buf[size - 1];
        uint8_t root_packed = buf[size - 2];
        if (root_width != 1 && root_width != 2 && root_width != 4 && root_width != 8)
                return -EINVAL;
        if (size < 2 + (size_t) root_width)
                return -EINVAL;
        uint64_t root_off = size - 2 - root_width;
        if ((root_packed >> 2) != FLEX_MAP)
                return -EINVAL;
        unsigned bw = 1u << (root_packed & 3);
        uint64_t elems;
        if (!flex_indirect(&b, root_off, root_width, &elems))
                return -EINVAL;
        uint64_t count, keys_rel_at, keys_width;
        if (elems < 3ull * bw || !flex_uint(&b, elems - bw, bw, &count) ||
            !flex_uint(&b, elems - 2ull * bw, bw, &keys_width))
                return -EINVAL;
        if (keys_width != 1 && keys_width != 2 && keys_width != 4 && keys_width != 8)
                return -EINVAL;
        keys_rel_at = elems - 3ull * bw;
        uint64_t keys;
        if (!flex_indirect(&b, keys_rel_at, bw, &keys))
                return -EINVAL;
        uint64_t keys_count;
        if (keys < keys_width || !flex_uint(&b, keys - keys_width, (unsigned) keys_width, &keys_count) ||
            keys_count != count)
                return -EINVAL;
        if (count > size || !flex_in(&b, elems, count * bw + count) || !flex_in(&b, keys, count * keys_width))
                return -EINVAL;
        for (uint64_t i = 0; i < count; i++) {
                uint64_t key_at;
                if (!flex_indirect(&b, keys + i * keys_width, (unsigned) keys_width, &key_at))
                        return -EINVAL;
                if (!flex_key_equals(&b, key_at, key))
                        continue;
                uint8_t packed = buf[elems + count * bw + i];
                return flex_read_scalar(&b, elems + i * bw, bw, packed, ret);
        }
        return -ENOENT;
}

int seq_flexmap_get_int(const uint8_t *buf, size_t size, const char *key, int64_t *ret) {
        flex_value_t v = { 0 };
        int r = flex_map_lookup(buf, size, key, &v);
        if (r < 0)
                return r;
        *ret = v.i;
        return 0;
}

int seq_flexmap_get_double(const uint8_t *buf, size_t size, const char *key, double *ret) {
        flex_value_t v = { 0 };
        int r = flex_map_lookup(buf, size, key, &v);
        if (r < 0)
                return r;
        *ret = v.d;
        return 0;
}
