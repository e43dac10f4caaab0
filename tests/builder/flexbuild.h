/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test helper: write a FlexBuffers map of scalars (int, float, bool) with
 * one byte width for everything, the way flexbuffers::Builder lays it out:
 * key strings, the keys vector, the map (keys offset, keys width, count,
 * values, type bytes), then the root offset, root type and root width.
 */
#pragma once

#include <stdint.h>
#include <string.h>

typedef struct fx_entry {
        const char *key;
        char kind;  /* 'i' int, 'f' float, 'b' bool */
        double value;
} fx_entry_t;

static size_t fx_put(uint8_t *buf, size_t at, uint64_t v, unsigned w) {
        for (unsigned i = 0; i < w; i++)
                buf[at + i] = (uint8_t) (v >> (8 * i));
        return at + w;
}

static size_t fx_align(size_t at, unsigned w) {
        return (at + w - 1) / w * w;
}

/* Returns the size written into buf (which must be large enough). */
static size_t fx_build_map(uint8_t *buf, const fx_entry_t *e, unsigned n, unsigned w) {
        unsigned lw = w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3;
        size_t at = 0, key_at[32];
        memset(buf, 0, 4096);
        for (unsigned i = 0; i < n; i++) {
                key_at[i] = at;
                size_t len = strlen(e[i].key) + 1;
                memcpy(buf + at, e[i].key, len);
                at += len;
        }
        at = fx_align(at, w);
        at = fx_put(buf, at, n, w);  /* keys vector length */
        size_t keys = at;
        for (unsigned i = 0; i < n; i++)
                at = fx_put(buf, at, keys + (size_t) i * w - key_at[i], w);
        size_t prefix = at;
        at = fx_put(buf, at, prefix - keys, w);  /* keys offset, relative to this field */
        at = fx_put(buf, at, w, w);              /* keys byte width */
        at = fx_put(buf, at, n, w);              /* count */
        size_t elems = at;
        for (unsigned i = 0; i < n; i++) {
                uint64_t bits = 0;
                if (e[i].kind == 'f') {
                        if (w == 8) {
                                double d = e[i].value;
                                memcpy(&bits, &d, 8);
                        } else {
                                float f = (float) e[i].value;
                                uint32_t u;
                                memcpy(&u, &f, 4);
                                bits = u;
                        }
                } else {
                        bits = (uint64_t) (int64_t) e[i].value;
                }
                at = fx_put(buf, at, bits, w);
        }
        for (unsigned i = 0; i < n; i++) {
                int type = e[i].kind == 'f' ? 3 : e[i].kind == 'b' ? 26 : 1;
                buf[at++] = (uint8_t) (type << 2 | lw);
        }
        at = fx_align(at, w);
        size_t root = at;
        at = fx_put(buf, at, root - elems, w);
        buf[at++] = (uint8_t) (9 << 2 | lw);  /* map */
        buf[at++] = (uint8_t) w;
        return at;
}
