/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Weight folding through the weights cache (fold.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "rt.h"

#define FOLD_MAGIC 0x444c4f46u  /* "FOLD" */
#define FOLD_ALIGN 64u

typedef struct fold_dir {
        uint32_t magic;
        uint32_t n;
} fold_dir_t;

typedef struct fold_entry {
        int32_t tensor;
        int32_t type;
        uint64_t offset;        /* from the payload's start */
        uint64_t bytes;
} fold_entry_t;

typedef struct fold_state {
        rt_exec_t *e;
        /* The blob found in the cache, if any. */
        const uint8_t *payload;
        size_t payload_size;
        const fold_entry_t *entries;
        uint32_t n_entries;
        /* The tensors folded now, in order. */
        int32_t *tensors;
        size_t n_tensors, cap_tensors;
        bool computed;          /* some node ran (the blob is missing or incomplete) */
        bool oom;
} fold_state_t;

static bool fold_wanted(const rt_node_t *n, void *user) {
        fold_state_t *st = user;
        if (n->op == RT_BUILTIN_DENSIFY)
                return true;
        if (n->op != RT_BUILTIN_DEQUANTIZE || n->n_inputs < 1 || n->n_outputs != 1 || n->inputs[0] < 0)
                return false;
        const rt_graph_t *g = rt_exec_graph(st->e);
        rt_type_t in = g->tensors[n->inputs[0]].type, out = g->tensors[n->outputs[0]].type;
        return out == RT_TYPE_FLOAT32 && (in == RT_TYPE_FLOAT16 || in == RT_TYPE_INT8 || in == RT_TYPE_UINT8 ||
                                          in == RT_TYPE_INT16);
}

static const void *fold_supply(const rt_node_t *n, int32_t tensor, const rt_tensor_t *t, size_t bytes, void *user) {
        (void) n;
        fold_state_t *st = user;
        for (uint32_t i = 0; i < st->n_entries; i++) {
                const fold_entry_t *en = &st->entries[i];
                if (en->tensor != tensor)
                        continue;
                if (en->type != (int32_t) t->type || en->bytes != bytes || en->offset % FOLD_ALIGN ||
                    en->offset > st->payload_size || bytes > st->payload_size - en->offset)
                        return NULL;
                return st->payload + en->offset;
        }
        return NULL;
}

static void fold_done(const rt_node_t *n, bool supplied, void *user) {
        fold_state_t *st = user;
        if (!supplied)
                st->computed = true;
        for (int32_t o = 0; o < n->n_outputs; o++) {
                if (st->n_tensors == st->cap_tensors) {
                        size_t cap = st->cap_tensors ? 2 * st->cap_tensors : 16;
                        int32_t *v = realloc(st->tensors, cap * sizeof(int32_t));
                        if (!v) {
                                st->oom = true;
                                return;
                        }
                        st->tensors = v;
                        st->cap_tensors = cap;
                }
                st->tensors[st->n_tensors++] = n->outputs[o];
        }
}

/* Take the directory of a blob found in the cache; a blob whose directory
 * does not check is simply not used (everything is computed again and
 * stored anew). */
static void state_use_blob(fold_state_t *st, const rt_wcache_blob_t *b) {
        size_t size = 0;
        const uint8_t *p = rt_wcache_blob_data(b, &size);
        fold_dir_t dir;
        if (size < sizeof(dir))
                return;
        memcpy(&dir, p, sizeof(dir));
        if (dir.magic != FOLD_MAGIC || dir.n > (size - sizeof(dir)) / sizeof(fold_entry_t))
                return;
        st->payload = p;
        st->payload_size = size;
        st->entries = (const fold_entry_t *) (p + sizeof(dir));
        st->n_entries = dir.n;
}

static const uint8_t zeros[FOLD_ALIGN];

/* Store the folded tensors of st as one blob and point them into it. */
static int fold_store(fold_state_t *st, rt_wcache_t *c, const char *key, rt_wcache_blob_t **ret) {
        const rt_graph_t *g = rt_exec_graph(st->e);
        size_t n = st->n_tensors;
        size_t head = sizeof(fold_dir_t) + n * sizeof(fold_entry_t);
        size_t pad0 = (FOLD_ALIGN - head % FOLD_ALIGN) % FOLD_ALIGN;
        uint8_t *dir = calloc(1, head);
        struct iovec *iov = calloc(2 * n + 2, sizeof(*iov));
        if (!dir || !iov) {
                free(dir);
                free(iov);
                return -ENOMEM;
        }
        ((fold_dir_t *) dir)->magic = FOLD_MAGIC;
        ((fold_dir_t *) dir)->n = (uint32_t) n;
        fold_entry_t *ents = (fold_entry_t *) (dir + sizeof(fold_dir_t));
        int k = 0;
        iov[k++] = (struct iovec) { dir, head };
        iov[k++] = (struct iovec) { (void *) zeros, pad0 };
        uint64_t off = head + pad0;
        for (size_t i = 0; i < n; i++) {
                const rt_tensor_t *t = &g->tensors[st->tensors[i]];
                ents[i] = (fold_entry_t) { st->tensors[i], (int32_t) t->type, off, t->bytes };
                size_t pad = (FOLD_ALIGN - t->bytes % FOLD_ALIGN) % FOLD_ALIGN;
                iov[k++] = (struct iovec) { t->data, t->bytes };
                iov[k++] = (struct iovec) { (void *) zeros, pad };
                off += t->bytes + pad;
        }
        rt_wcache_blob_t *b = NULL;
        int r = rt_wcache_insert(c, key, iov, k, &b);
        free(iov);
        free(dir);
        if (r < 0)
                return r;
        /* Read the directory back from the file (another process may have
         * stored the key first, and its blob is what we got) and check that
         * it holds exactly what was computed before switching over. */
        fold_state_t chk = { .e = st->e };
        state_use_blob(&chk, b);
        const void **src = calloc(n ? n : 1, sizeof(*src));
        for (size_t i = 0; src && i < n; i++) {
                const rt_tensor_t *t = &g->tensors[st->tensors[i]];
                src[i] = fold_supply(NULL, st->tensors[i], t, t->bytes, &chk);
                if (!src[i] || memcmp(src[i], t->data, t->bytes) != 0) {
                        free(src);
                        rt_wcache_blob_unref(b);
                        return -ESTALE;
                }
        }
        if (!src) {
                rt_wcache_blob_unref(b);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                (void) rt_exec_adopt_const(st->e, st->tensors[i], src[i], g->tensors[st->tensors[i]].bytes);
        free(src);
        *ret = b;
        return 0;
}

int rt_fold_weights(rt_exec_t *e, rt_wcache_t *c, const char *model_key, int32_t subgraph,
                    rt_wcache_blob_t **ret_blob) {
        if (!e || !ret_blob)
                return -EINVAL;
        *ret_blob = NULL;
        char key[256];
        bool cached = c && model_key && *model_key &&
                      snprintf(key, sizeof(key), "fold/s%d/%s", (int) subgraph, model_key) < (int) sizeof(key);
        fold_state_t st = { .e = e };
        rt_wcache_blob_t *found = NULL;
        if (cached && rt_wcache_lookup(c, key, &found) == 0)
                state_use_blob(&st, found);
        rt_exec_fold_ops_t ops = { .want = fold_wanted, .supply = st.payload ? fold_supply : NULL,
                                   .folded = fold_done, .user = &st };
        int r = rt_exec_fold(e, &ops);
        if (r > 0 && cached && st.computed && !st.oom) {
                rt_wcache_blob_t *stored = NULL;
                if (fold_store(&st, c, key, &stored) == 0) {
                        rt_wcache_blob_unref(found);
                        found = stored;
                }
        }
        free(st.tensors);
        if (r <= 0)
                found = rt_wcache_blob_unref(found);
        *ret_blob = found;
        return r;
}

/* ---- the drivers' hook ---- */

static int hook_key(const rt_driver_weights_t *w, const char *key, char *buf, size_t size) {
        const rt_weights_hook_t *h = (const rt_weights_hook_t *) w;
        if (!key || !*key)
                return -EINVAL;
        int n = snprintf(buf, size, "drv/%s/%s", h->model_key, key);
        return n < 0 || (size_t) n >= size ? -EINVAL : 0;
}

static int hook_lookup(const rt_driver_weights_t *w, const char *key, const void **ret_data, size_t *ret_size,
                       void **ret_ref) {
        const rt_weights_hook_t *h = (const rt_weights_hook_t *) w;
        char full[RT_WCACHE_KEY_MAX];
        rt_wcache_blob_t *b = NULL;
        int r = hook_key(w, key, full, sizeof(full));
        if (r < 0 || (r = rt_wcache_lookup(h->cache, full, &b)) < 0)
                return r;
        *ret_data = rt_wcache_blob_data(b, ret_size);
        *ret_ref = b;
        return 0;
}

static int hook_insert(const rt_driver_weights_t *w, const char *key, const void *data, size_t size,
                       const void **ret_data, void **ret_ref) {
        const rt_weights_hook_t *h = (const rt_weights_hook_t *) w;
        char full[RT_WCACHE_KEY_MAX];
        rt_wcache_blob_t *b = NULL;
        struct iovec iov = { (void *) data, size };
        int r = hook_key(w, key, full, sizeof(full));
        if (r < 0 || (r = rt_wcache_insert(h->cache, full, &iov, 1, &b)) < 0)
                return r;
        *ret_data = rt_wcache_blob_data(b, NULL);
        *ret_ref = b;
        return 0;
}

static void hook_unref(const rt_driver_weights_t *w, void *ref) {
        (void) w;
        rt_wcache_blob_unref(ref);
}

int rt_weights_hook_init(rt_weights_hook_t *h, rt_wcache_t *c, const char *model_key) {
        if (!h || !c || !model_key || !*model_key || strlen(model_key) >= sizeof(h->model_key))
                return -EINVAL;
        *h = (rt_weights_hook_t) {
                .pub = { .lookup = hook_lookup, .insert = hook_insert, .unref = hook_unref },
                .cache = c,
        };
        snprintf(h->model_key, sizeof(h->model_key), "%s", model_key);
        return 0;
}
