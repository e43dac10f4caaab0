/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small FlatBuffers writer for TFLite models.
 *
 * The serializer works like the reference FlatBuffers builder: it writes
 * back to front into a buffer that grows downwards, so every object is
 * written before the objects that refer to it and every uoffset points
 * forward. Positions are kept as distances from the end of the buffer
 * ("refs"); alignment is computed from the end as well and the finished
 * buffer is padded to the largest alignment used, so it also holds from the
 * start of the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tflite-builder.h"

#define ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))
/* Largest field id a table may use (options tables have fewer than 20). */
#define MAX_FIELD_ID 63

/* ---- the collected model ---- */

typedef struct blob {
        uint8_t *data;
        size_t size;
        bool external;
} blob_t;

typedef struct tensor_rec {
        rt_type_t type;
        int32_t rank;
        int32_t *shape;
        int32_t *sig;
        uint32_t buffer;
        char *name;
        size_t n_quant;
        float *scale;
        int64_t *zero_point;
        int32_t quantized_dimension;
        bool is_variable;
        bool has_rank;
        rt_sparsity_t *sparsity; /* deep copy */
} tensor_rec_t;

typedef struct op_rec {
        int32_t opcode;
        int32_t *inputs, *outputs, *intermediates;
        int32_t n_inputs, n_outputs, n_intermediates;
        uint8_t options_type;
        tfb_option_t *options; /* deep copy */
        size_t n_options;
        uint8_t *custom;
        size_t custom_size;
        bool has_custom;
} op_rec_t;

typedef struct subgraph_rec {
        char *name;
        tensor_rec_t *tensors;
        int32_t n_tensors;
        op_rec_t *ops;
        int32_t n_ops;
        int32_t *inputs, *outputs;
        int32_t n_inputs, n_outputs;
} subgraph_rec_t;

typedef struct opcode_rec {
        int8_t deprecated;
        int32_t builtin;
        char *custom;
        int32_t version;
        bool raw;
} opcode_rec_t;

typedef struct sig_rec {
        char *key;
        int32_t subgraph;
        char **in_names, **out_names;
        int32_t *in, *out;
        int32_t n_in, n_out;
} sig_rec_t;

typedef struct meta_rec {
        char *name;
        int32_t buffer;
} meta_rec_t;

struct tfb {
        uint32_t version;
        char *description;
        blob_t *buffers;
        int32_t n_buffers;
        opcode_rec_t *opcodes;
        int32_t n_opcodes;
        subgraph_rec_t *subgraphs;
        int32_t n_subgraphs;
        int32_t cur;
        sig_rec_t *sigs;
        int32_t n_sigs;
        meta_rec_t *meta;
        int32_t n_meta;
};

/* Grow *arr (of *n elements of `elem` bytes) by one zeroed element. */
static void *append(void *arr_ptr, int32_t *n, size_t elem) {
        void **arr = arr_ptr;
        void *p = realloc(*arr, ((size_t) *n + 1) * elem);
        if (!p)
                return NULL;
        *arr = p;
        void *e = (uint8_t *) p + (size_t) *n * elem;
        memset(e, 0, elem);
        (*n)++;
        return e;
}

static void *dup_mem(const void *p, size_t size) {
        if (!p || size == 0)
                return NULL;
        void *c = malloc(size);
        if (c)
                memcpy(c, p, size);
        return c;
}

static char *dup_str(const char *s) {
        return s ? strdup(s) : NULL;
}

/* Copy of an int32 list; *ok false on ENOMEM. */
static int32_t *dup_ids(const int32_t *ids, int32_t n, bool *ok) {
        if (n <= 0 || !ids)
                return NULL;
        int32_t *c = dup_mem(ids, (size_t) n * sizeof(int32_t));
        if (!c)
                *ok = false;
        return c;
}

tfb_t *tfb_new(void) {
        tfb_t *b = calloc(1, sizeof(*b));
        if (!b)
                return NULL;
        b->version = 3;
        b->description = strdup("tflite-builder");
        if (!b->description || tfb_buffer_add(b, NULL, 0) < 0 || tfb_subgraph_add(b, NULL) < 0)
                return tfb_free(b);
        return b;
}

static void sparsity_free(rt_sparsity_t *s) {
        if (!s)
                return;
        free((void *) s->traversal_order);
        free((void *) s->block_map);
        for (uint32_t k = 0; s->dim_metadata && k < s->n_dim_metadata; k++) {
                free((void *) s->dim_metadata[k].array_segments.data);
                free((void *) s->dim_metadata[k].array_indices.data);
        }
        free(s->dim_metadata);
        free(s);
}

tfb_t *tfb_free(tfb_t *b) {
        if (!b)
                return NULL;
        free(b->description);
        for (int32_t i = 0; i < b->n_buffers; i++)
                free(b->buffers[i].data);
        free(b->buffers);
        for (int32_t i = 0; i < b->n_opcodes; i++)
                free(b->opcodes[i].custom);
        free(b->opcodes);
        for (int32_t s = 0; s < b->n_subgraphs; s++) {
                subgraph_rec_t *sg = &b->subgraphs[s];
                for (int32_t t = 0; t < sg->n_tensors; t++) {
                        tensor_rec_t *tr = &sg->tensors[t];
                        free(tr->shape);
                        free(tr->sig);
                        free(tr->name);
                        free(tr->scale);
                        free(tr->zero_point);
                        sparsity_free(tr->sparsity);
                }
                free(sg->tensors);
                for (int32_t o = 0; o < sg->n_ops; o++) {
                        op_rec_t *op = &sg->ops[o];
                        free(op->inputs);
                        free(op->outputs);
                        free(op->intermediates);
                        for (size_t k = 0; k < op->n_options; k++) {
                                free((void *) op->options[k].vec);
                                free((void *) op->options[k].fvec);
                                free((void *) op->options[k].str);
                        }
                        free(op->options);
                        free(op->custom);
                }
                free(sg->ops);
                free(sg->name);
                free(sg->inputs);
                free(sg->outputs);
        }
        free(b->subgraphs);
        for (int32_t i = 0; i < b->n_sigs; i++) {
                sig_rec_t *s = &b->sigs[i];
                for (int32_t k = 0; k < s->n_in; k++)
                        free(s->in_names ? s->in_names[k] : NULL);
                for (int32_t k = 0; k < s->n_out; k++)
                        free(s->out_names ? s->out_names[k] : NULL);
                free(s->in_names);
                free(s->out_names);
                free(s->in);
                free(s->out);
                free(s->key);
        }
        free(b->sigs);
        for (int32_t i = 0; i < b->n_meta; i++)
                free(b->meta[i].name);
        free(b->meta);
        free(b);
        return NULL;
}

void tfb_set_version(tfb_t *b, uint32_t version) {
        b->version = version;
}

int tfb_set_description(tfb_t *b, const char *description) {
        char *d = dup_str(description);
        if (description && !d)
                return -ENOMEM;
        free(b->description);
        b->description = d;
        return 0;
}

static int32_t buffer_add(tfb_t *b, const void *data, size_t size, bool external) {
        uint8_t *copy = NULL;
        if (size > 0) {
                copy = dup_mem(data, size);
                if (!copy)
                        return -ENOMEM;
        }
        blob_t *e = append(&b->buffers, &b->n_buffers, sizeof(blob_t));
        if (!e) {
                free(copy);
                return -ENOMEM;
        }
        *e = (blob_t) { copy, copy ? size : 0, external };
        return b->n_buffers - 1;
}

int32_t tfb_buffer_add(tfb_t *b, const void *data, size_t size) {
        return buffer_add(b, data, size, false);
}

int32_t tfb_buffer_add_external(tfb_t *b, const void *data, size_t size) {
        return buffer_add(b, data, size, true);
}

static rt_sparsity_t *sparsity_dup(const rt_sparsity_t *s, bool *ok) {
        rt_sparsity_t *c = calloc(1, sizeof(*c));
        if (!c) {
                *ok = false;
                return NULL;
        }
        c->traversal_order = dup_ids(s->traversal_order, (int32_t) s->n_traversal_order, ok);
        c->n_traversal_order = s->n_traversal_order;
        c->block_map = dup_ids(s->block_map, (int32_t) s->n_block_map, ok);
        c->n_block_map = s->n_block_map;
        if (s->n_dim_metadata) {
                c->dim_metadata = calloc(s->n_dim_metadata, sizeof(rt_dim_metadata_t));
                if (!c->dim_metadata) {
                        *ok = false;
                        return c;
                }
                c->n_dim_metadata = s->n_dim_metadata;
        }
        for (uint32_t k = 0; k < s->n_dim_metadata; k++) {
                const rt_dim_metadata_t *d = &s->dim_metadata[k];
                rt_dim_metadata_t *e = &c->dim_metadata[k];
                *e = *d;
                e->array_segments.data = dup_mem(d->array_segments.data,
                                                 (size_t) d->array_segments.n * d->array_segments.elem_size);
                e->array_indices.data = dup_mem(d->array_indices.data,
                                                (size_t) d->array_indices.n * d->array_indices.elem_size);
                if ((d->array_segments.n && d->array_segments.elem_size && !e->array_segments.data) ||
                    (d->array_indices.n && d->array_indices.elem_size && !e->array_indices.data))
                        *ok = false;
        }
        return c;
}

int32_t tfb_tensor_add(tfb_t *b, const tfb_tensor_t *t) {
        subgraph_rec_t *sg = &b->subgraphs[b->cur];
        tensor_rec_t *tr = append(&sg->tensors, &sg->n_tensors, sizeof(tensor_rec_t));
        if (!tr)
                return -ENOMEM;
        bool ok = true;
        tr->type = t->type;
        tr->rank = t->rank < 0 ? 0 : t->rank;
        tr->shape = dup_ids(t->shape, tr->rank, &ok);
        tr->sig = dup_ids(t->shape_signature, tr->rank, &ok);
        tr->buffer = t->buffer;
        tr->name = dup_str(t->name);
        if (t->name && !tr->name)
                ok = false;
        tr->n_quant = t->n_quant;
        if (t->n_quant) {
                tr->scale = dup_mem(t->scale, t->n_quant * sizeof(float));
                tr->zero_point = dup_mem(t->zero_point, t->n_quant * sizeof(int64_t));
                if (!tr->scale || !tr->zero_point)
                        ok = false;
        }
        tr->quantized_dimension = t->quantized_dimension;
        tr->is_variable = t->is_variable;
        tr->has_rank = t->has_rank;
        if (t->sparsity)
                tr->sparsity = sparsity_dup(t->sparsity, &ok);
        /* A half-copied record stays in the list and is freed with b. */
        return ok ? sg->n_tensors - 1 : -ENOMEM;
}

int32_t tfb_tensor(tfb_t *b, rt_type_t type, const char *name, int32_t rank, const int32_t *shape) {
        return tfb_tensor_add(b, &(tfb_tensor_t) { .type = type, .name = name, .rank = rank, .shape = shape });
}

int32_t tfb_tensor_const(tfb_t *b, rt_type_t type, const char *name, int32_t rank, const int32_t *shape,
                         const void *data, size_t size) {
        int32_t buf = tfb_buffer_add(b, data, size);
        if (buf < 0)
                return buf;
        return tfb_tensor_add(b, &(tfb_tensor_t) {
                .type = type, .name = name, .rank = rank, .shape = shape, .buffer = (uint32_t) buf });
}

int32_t tfb_tensor_quant(tfb_t *b, rt_type_t type, const char *name, int32_t rank, const int32_t *shape,
                         float scale, int64_t zero_point, const void *data, size_t size) {
        int32_t buf = 0;
        if (data && size) {
                buf = tfb_buffer_add(b, data, size);
                if (buf < 0)
                        return buf;
        }
        return tfb_tensor_add(b, &(tfb_tensor_t) {
                .type = type, .name = name, .rank = rank, .shape = shape, .buffer = (uint32_t) buf,
                .n_quant = 1, .scale = &scale, .zero_point = &zero_point });
}

static int32_t opcode_add(tfb_t *b, int8_t deprecated, int32_t builtin, const char *custom, int32_t version,
                          bool raw) {
        if (!raw)
                for (int32_t i = 0; i < b->n_opcodes; i++) {
                        opcode_rec_t *o = &b->opcodes[i];
                        if (!o->raw && o->builtin == builtin && o->version == version &&
                            ((!o->custom && !custom) || (o->custom && custom && strcmp(o->custom, custom) == 0)))
                                return i;
                }
        char *c = dup_str(custom);
        if (custom && !c)
                return -ENOMEM;
        opcode_rec_t *o = append(&b->opcodes, &b->n_opcodes, sizeof(opcode_rec_t));
        if (!o) {
                free(c);
                return -ENOMEM;
        }
        *o = (opcode_rec_t) { deprecated, builtin, c, version, raw };
        return b->n_opcodes - 1;
}

int32_t tfb_opcode_builtin(tfb_t *b, int32_t code, int32_t version) {
        return opcode_add(b, (int8_t) (code < 127 ? code : 127), code, NULL, version, false);
}

int32_t tfb_opcode_custom(tfb_t *b, const char *name, int32_t version) {
        return opcode_add(b, RT_BUILTIN_CUSTOM, RT_BUILTIN_CUSTOM, name, version, false);
}

int32_t tfb_opcode_raw(tfb_t *b, int8_t deprecated_code, int32_t builtin_code, const char *custom,
                       int32_t version) {
        return opcode_add(b, deprecated_code, builtin_code, custom, version, true);
}

int32_t tfb_op_add(tfb_t *b, const tfb_op_t *op) {
        subgraph_rec_t *sg = &b->subgraphs[b->cur];
        op_rec_t *o = append(&sg->ops, &sg->n_ops, sizeof(op_rec_t));
        if (!o)
                return -ENOMEM;
        bool ok = true;
        o->opcode = op->opcode;
        o->inputs = dup_ids(op->inputs, op->n_inputs, &ok);
        o->n_inputs = op->inputs ? op->n_inputs : 0;
        o->outputs = dup_ids(op->outputs, op->n_outputs, &ok);
        o->n_outputs = op->outputs ? op->n_outputs : 0;
        o->intermediates = dup_ids(op->intermediates, op->n_intermediates, &ok);
        o->n_intermediates = op->intermediates ? op->n_intermediates : 0;
        o->options_type = op->options_type;
        if (op->n_options) {
                o->options = calloc(op->n_options, sizeof(tfb_option_t));
                if (!o->options)
                        return -ENOMEM;
                o->n_options = op->n_options;
                for (size_t k = 0; k < op->n_options; k++) {
                        const tfb_option_t *src = &op->options[k];
                        tfb_option_t *dst = &o->options[k];
                        *dst = *src;
                        dst->vec = dup_ids(src->vec, (int32_t) src->n, &ok);
                        dst->fvec = dup_mem(src->fvec, (size_t) src->n * sizeof(float));
                        dst->str = dup_str(src->str);
                        if ((src->fvec && src->n && !dst->fvec) || (src->str && !dst->str))
                                ok = false;
                }
        }
        if (op->custom_options) {
                o->has_custom = true;
                o->custom = dup_mem(op->custom_options, op->custom_options_size);
                o->custom_size = o->custom ? op->custom_options_size : 0;
                if (op->custom_options_size && !o->custom)
                        ok = false;
        }
        return ok ? sg->n_ops - 1 : -ENOMEM;
}

int tfb_io(tfb_t *b, const int32_t *inputs, int32_t n_inputs, const int32_t *outputs, int32_t n_outputs) {
        subgraph_rec_t *sg = &b->subgraphs[b->cur];
        bool ok = true;
        int32_t *in = dup_ids(inputs, n_inputs, &ok);
        int32_t *out = dup_ids(outputs, n_outputs, &ok);
        if (!ok) {
                free(in);
                free(out);
                return -ENOMEM;
        }
        free(sg->inputs);
        free(sg->outputs);
        sg->inputs = in;
        sg->n_inputs = in ? n_inputs : 0;
        sg->outputs = out;
        sg->n_outputs = out ? n_outputs : 0;
        return 0;
}

int32_t tfb_subgraph_add(tfb_t *b, const char *name) {
        char *n = dup_str(name);
        if (name && !n)
                return -ENOMEM;
        subgraph_rec_t *sg = append(&b->subgraphs, &b->n_subgraphs, sizeof(subgraph_rec_t));
        if (!sg) {
                free(n);
                return -ENOMEM;
        }
        sg->name = n;
        b->cur = b->n_subgraphs - 1;
        return b->cur;
}

int tfb_subgraph_select(tfb_t *b, int32_t index) {
        if (index < 0 || index >= b->n_subgraphs)
                return -EINVAL;
        b->cur = index;
        return 0;
}

int tfb_subgraph_name(tfb_t *b, const char *name) {
        char *n = dup_str(name);
        if (name && !n)
                return -ENOMEM;
        free(b->subgraphs[b->cur].name);
        b->subgraphs[b->cur].name = n;
        return 0;
}

static char **dup_names(const char *const *names, int32_t n, bool *ok) {
        if (n <= 0)
                return NULL;
        char **c = calloc((size_t) n, sizeof(char *));
        if (!c) {
                *ok = false;
                return NULL;
        }
        for (int32_t k = 0; k < n; k++) {
                c[k] = dup_str(names ? names[k] : NULL);
                if (names && names[k] && !c[k])
                        *ok = false;
        }
        return c;
}

int32_t tfb_signature_add(tfb_t *b, const char *key, int32_t subgraph, const char *const *input_names,
                          const int32_t *inputs, int32_t n_inputs, const char *const *output_names,
                          const int32_t *outputs, int32_t n_outputs) {
        sig_rec_t *s = append(&b->sigs, &b->n_sigs, sizeof(sig_rec_t));
        if (!s)
                return -ENOMEM;
        bool ok = true;
        s->key = dup_str(key);
        s->subgraph = subgraph;
        s->in_names = dup_names(input_names, n_inputs, &ok);
        s->in = dup_ids(inputs, n_inputs, &ok);
        s->n_in = s->in ? n_inputs : 0;
        s->out_names = dup_names(output_names, n_outputs, &ok);
        s->out = dup_ids(outputs, n_outputs, &ok);
        s->n_out = s->out ? n_outputs : 0;
        if (key && !s->key)
                ok = false;
        return ok ? b->n_sigs - 1 : -ENOMEM;
}

int32_t tfb_metadata_add(tfb_t *b, const char *name, const void *data, size_t size) {
        int32_t buf = tfb_buffer_add(b, data, size);
        if (buf < 0)
                return buf;
        char *n = dup_str(name);
        if (name && !n)
                return -ENOMEM;
        meta_rec_t *m = append(&b->meta, &b->n_meta, sizeof(meta_rec_t));
        if (!m) {
                free(n);
                return -ENOMEM;
        }
        *m = (meta_rec_t) { n, buf };
        return b->n_meta - 1;
}

/* ---- the serializer ---- */

typedef struct wbuf {
        uint8_t *mem;
        size_t cap;
        size_t len;      /* bytes written, at mem[cap - len .. cap) */
        size_t minalign;
        bool oom;
} wbuf_t;

static bool grow(wbuf_t *w, size_t need) {
        if (w->oom)
                return false;
        if (w->len + need <= w->cap)
                return true;
        size_t cap = w->cap ? w->cap * 2 : 1024;
        while (cap < w->len + need)
                cap *= 2;
        uint8_t *mem = malloc(cap);
        if (!mem) {
                w->oom = true;
                return false;
        }
        if (w->len)
                memcpy(mem + cap - w->len, w->mem + w->cap - w->len, w->len);
        free(w->mem);
        w->mem = mem;
        w->cap = cap;
        return true;
}

static void push(wbuf_t *w, const void *p, size_t n) {
        if (n == 0 || !grow(w, n))
                return;
        w->len += n;
        if (p)
                memcpy(w->mem + w->cap - w->len, p, n);
        else
                memset(w->mem + w->cap - w->len, 0, n);
}

/* Pad so that after writing `additional` bytes the position is aligned. */
static void prep(wbuf_t *w, size_t align, size_t additional) {
        if (align > w->minalign)
                w->minalign = align;
        size_t pad = (align - ((w->len + additional) % align)) % align;
        push(w, NULL, pad);
}

static void push_u32(wbuf_t *w, uint32_t x) {
        prep(w, 4, 0);
        push(w, &x, 4);
}

static uint32_t ref(const wbuf_t *w) {
        return (uint32_t) w->len;
}

/* Returns the ref of the vector (its length word). */
static uint32_t write_vec(wbuf_t *w, const void *elems, uint32_t n, size_t elem, size_t align) {
        size_t a = align > 4 ? align : 4;
        if (elem > a)
                a = elem;
        prep(w, a, (size_t) n * elem);
        push(w, elems, (size_t) n * elem);
        push_u32(w, n);
        return ref(w);
}

static uint32_t write_string(wbuf_t *w, const char *s) {
        size_t n = strlen(s);
        prep(w, 4, n + 1);
        push(w, NULL, 1);
        push(w, s, n);
        push_u32(w, (uint32_t) n);
        return ref(w);
}

/* A vector of uoffsets to objects at `refs`. */
static uint32_t write_offsets(wbuf_t *w, const uint32_t *refs, uint32_t n) {
        prep(w, 4, (size_t) n * 4);
        for (uint32_t i = n; i-- > 0;) {
                uint32_t off = ref(w) + 4 - refs[i];
                push(w, &off, 4);
        }
        push_u32(w, n);
        return ref(w);
}

#define MAX_FIELDS 16

typedef struct tbl {
        size_t start;
        uint16_t ids[MAX_FIELDS];
        uint32_t refs[MAX_FIELDS];
        unsigned n;
} tbl_t;

static void tbl_start(const wbuf_t *w, tbl_t *t) {
        t->start = w->len;
        t->n = 0;
}

static void tbl_record(wbuf_t *w, tbl_t *t, uint16_t id) {
        if (t->n < MAX_FIELDS && id <= MAX_FIELD_ID) {
                t->ids[t->n] = id;
                t->refs[t->n] = ref(w);
                t->n++;
        }
}

/* Returns the ref of the field, to patch it later. */
static uint32_t tbl_scalar(wbuf_t *w, tbl_t *t, uint16_t id, const void *v, size_t size) {
        prep(w, size, 0);
        push(w, v, size);
        tbl_record(w, t, id);
        return ref(w);
}

static void tbl_u8(wbuf_t *w, tbl_t *t, uint16_t id, uint8_t v) {
        tbl_scalar(w, t, id, &v, 1);
}

static void tbl_i32(wbuf_t *w, tbl_t *t, uint16_t id, int32_t v) {
        tbl_scalar(w, t, id, &v, 4);
}

static void tbl_offset(wbuf_t *w, tbl_t *t, uint16_t id, uint32_t target) {
        if (!target)
                return;
        prep(w, 4, 0);
        uint32_t off = ref(w) + 4 - target;
        push(w, &off, 4);
        tbl_record(w, t, id);
}

static uint32_t tbl_end(wbuf_t *w, tbl_t *t) {
        prep(w, 4, 0);
        push(w, NULL, 4); /* soffset to the vtable, patched below */
        uint32_t table = ref(w);
        unsigned max_id = 0;
        for (unsigned k = 0; k < t->n; k++)
                if (t->ids[k] + 1u > max_id)
                        max_id = t->ids[k] + 1u;
        uint16_t vt[2 + MAX_FIELD_ID + 1] = { 0 };
        size_t vsize = 4 + 2 * (size_t) max_id;
        vt[0] = (uint16_t) vsize;
        vt[1] = (uint16_t) (table - t->start);
        for (unsigned k = 0; k < t->n; k++)
                vt[2 + t->ids[k]] = (uint16_t) (table - t->refs[k]);
        push(w, vt, vsize);
        if (w->oom)
                return table;
        int32_t soff = (int32_t) (ref(w) - table);
        memcpy(w->mem + w->cap - table, &soff, 4);
        return table;
}

typedef struct patch {
        uint32_t field_ref; /* the Buffer.offset field */
        int32_t buffer;
} patch_t;

static uint32_t write_options(wbuf_t *w, const op_rec_t *op) {
        uint32_t refs[MAX_FIELDS] = { 0 };
        size_t n = op->n_options < MAX_FIELDS ? op->n_options : MAX_FIELDS;
        for (size_t k = 0; k < n; k++) {
                const tfb_option_t *o = &op->options[k];
                if (o->kind == TFB_VEC_I32)
                        refs[k] = write_vec(w, o->vec, o->n, 4, 4);
                else if (o->kind == TFB_VEC_F32)
                        refs[k] = write_vec(w, o->fvec, o->n, 4, 4);
                else if (o->kind == TFB_STRING && o->str)
                        refs[k] = write_string(w, o->str);
        }
        tbl_t t;
        tbl_start(w, &t);
        for (size_t k = 0; k < n; k++) {
                const tfb_option_t *o = &op->options[k];
                union {
                        int8_t i8;
                        int16_t i16;
                        int32_t i32;
                        int64_t i64;
                        float f32;
                        double f64;
                } v;
                size_t size;
                switch (o->kind) {
                case TFB_BOOL:
                        v.i8 = o->i != 0;
                        size = 1;
                        break;
                case TFB_I8:
                case TFB_U8:
                        v.i8 = (int8_t) o->i;
                        size = 1;
                        break;
                case TFB_I16:
                case TFB_U16:
                        v.i16 = (int16_t) o->i;
                        size = 2;
                        break;
                case TFB_I32:
                case TFB_U32:
                        v.i32 = (int32_t) o->i;
                        size = 4;
                        break;
                case TFB_I64:
                        v.i64 = o->i;
                        size = 8;
                        break;
                case TFB_F32:
                        v.f32 = (float) o->f;
                        size = 4;
                        break;
                case TFB_F64:
                        v.f64 = o->f;
                        size = 8;
                        break;
                default:
                        tbl_offset(w, &t, o->id, refs[k]);
                        continue;
                }
                tbl_scalar(w, &t, o->id, &v, size);
        }
        return tbl_end(w, &t);
}

static uint32_t write_sparsity(wbuf_t *w, const rt_sparsity_t *s) {
        uint32_t dims[2 * RT_MAX_RANK + 8] = { 0 };
        uint32_t n = s->n_dim_metadata < ELEMENTS(dims) ? s->n_dim_metadata : ELEMENTS(dims);
        for (uint32_t k = 0; k < n; k++) {
                const rt_dim_metadata_t *d = &s->dim_metadata[k];
                uint32_t idx_ref[2] = { 0, 0 };
                const rt_sparse_index_t *iv[2] = { &d->array_segments, &d->array_indices };
                for (int j = 0; j < 2; j++) {
                        if (!iv[j]->elem_size)
                                continue;
                        uint32_t vec = write_vec(w, iv[j]->data, iv[j]->n, iv[j]->elem_size, 4);
                        tbl_t t;
                        tbl_start(w, &t);
                        tbl_offset(w, &t, 0, vec);
                        idx_ref[j] = tbl_end(w, &t);
                }
                tbl_t t;
                tbl_start(w, &t);
                tbl_u8(w, &t, 0, (uint8_t) d->format);
                tbl_i32(w, &t, 1, d->dense_size);
                for (int j = 0; j < 2; j++) {
                        if (!idx_ref[j])
                                continue;
                        uint8_t type = iv[j]->elem_size == 4 ? 1 : iv[j]->elem_size == 2 ? 2 : 3;
                        tbl_u8(w, &t, (uint16_t) (2 + 2 * j), type);
                        tbl_offset(w, &t, (uint16_t) (3 + 2 * j), idx_ref[j]);
                }
                dims[k] = tbl_end(w, &t);
        }
        uint32_t dims_vec = write_offsets(w, dims, n);
        uint32_t order = s->traversal_order ? write_vec(w, s->traversal_order, s->n_traversal_order, 4, 4) : 0;
        uint32_t block = s->block_map ? write_vec(w, s->block_map, s->n_block_map, 4, 4) : 0;
        tbl_t t;
        tbl_start(w, &t);
        tbl_offset(w, &t, 0, order);
        tbl_offset(w, &t, 1, block);
        tbl_offset(w, &t, 2, dims_vec);
        return tbl_end(w, &t);
}

static uint32_t write_tensor(wbuf_t *w, const tensor_rec_t *tr) {
        uint32_t shape = write_vec(w, tr->shape, (uint32_t) tr->rank, 4, 4);
        uint32_t sig = tr->sig ? write_vec(w, tr->sig, (uint32_t) tr->rank, 4, 4) : 0;
        uint32_t name = tr->name ? write_string(w, tr->name) : 0;
        uint32_t quant = 0;
        if (tr->n_quant) {
                uint32_t scale = write_vec(w, tr->scale, (uint32_t) tr->n_quant, 4, 4);
                uint32_t zp = write_vec(w, tr->zero_point, (uint32_t) tr->n_quant, 8, 8);
                tbl_t t;
                tbl_start(w, &t);
                tbl_offset(w, &t, 2, scale);
                tbl_offset(w, &t, 3, zp);
                tbl_i32(w, &t, 6, tr->quantized_dimension);
                quant = tbl_end(w, &t);
        }
        uint32_t sparsity = tr->sparsity ? write_sparsity(w, tr->sparsity) : 0;
        tbl_t t;
        tbl_start(w, &t);
        tbl_offset(w, &t, 0, shape);
        tbl_u8(w, &t, 1, (uint8_t) tr->type);
        if (tr->buffer)
                tbl_scalar(w, &t, 2, &tr->buffer, 4);
        tbl_offset(w, &t, 3, name);
        tbl_offset(w, &t, 4, quant);
        if (tr->is_variable)
                tbl_u8(w, &t, 5, 1);
        tbl_offset(w, &t, 6, sparsity);
        tbl_offset(w, &t, 7, sig);
        if (tr->has_rank)
                tbl_u8(w, &t, 8, 1);
        return tbl_end(w, &t);
}

static uint32_t write_op(wbuf_t *w, const op_rec_t *op) {
        uint32_t in = write_vec(w, op->inputs, (uint32_t) op->n_inputs, 4, 4);
        uint32_t out = write_vec(w, op->outputs, (uint32_t) op->n_outputs, 4, 4);
        uint32_t inter = op->n_intermediates ? write_vec(w, op->intermediates, (uint32_t) op->n_intermediates, 4, 4) : 0;
        uint32_t opts = op->options_type ? write_options(w, op) : 0;
        uint32_t custom = op->has_custom ? write_vec(w, op->custom, (uint32_t) op->custom_size, 1, 4) : 0;
        tbl_t t;
        tbl_start(w, &t);
        uint32_t opcode = (uint32_t) op->opcode;
        tbl_scalar(w, &t, 0, &opcode, 4);
        tbl_offset(w, &t, 1, in);
        tbl_offset(w, &t, 2, out);
        if (op->options_type)
                tbl_u8(w, &t, 3, op->options_type);
        tbl_offset(w, &t, 4, opts);
        tbl_offset(w, &t, 5, custom);
        tbl_offset(w, &t, 8, inter);
        return tbl_end(w, &t);
}

static uint32_t write_tensor_maps(wbuf_t *w, char **names, const int32_t *idx, int32_t n) {
        uint32_t *refs = calloc(n > 0 ? (size_t) n : 1, sizeof(uint32_t));
        if (!refs) {
                w->oom = true;
                return 0;
        }
        for (int32_t k = 0; k < n; k++) {
                uint32_t name = names && names[k] ? write_string(w, names[k]) : 0;
                tbl_t t;
                tbl_start(w, &t);
                tbl_offset(w, &t, 0, name);
                uint32_t ti = (uint32_t) idx[k];
                tbl_scalar(w, &t, 1, &ti, 4);
                refs[k] = tbl_end(w, &t);
        }
        uint32_t v = write_offsets(w, refs, (uint32_t) n);
        free(refs);
        return v;
}

/* Serialize everything but external data; fills patches for external
 * buffers. Returns the root table ref. */
static uint32_t write_model(wbuf_t *w, const tfb_t *b, patch_t *patches, size_t *n_patches) {
        size_t max = (size_t) b->n_buffers;
        size_t count = (size_t) b->n_opcodes + (size_t) b->n_subgraphs + (size_t) b->n_sigs + (size_t) b->n_meta;
        for (int32_t s = 0; s < b->n_subgraphs; s++)
                count += (size_t) b->subgraphs[s].n_tensors + (size_t) b->subgraphs[s].n_ops;
        if (count > max)
                max = count;
        uint32_t *refs = calloc(max + 1, sizeof(uint32_t));
        uint32_t *sub = calloc(max + 1, sizeof(uint32_t));
        if (!refs || !sub) {
                free(refs);
                free(sub);
                w->oom = true;
                return 0;
        }

        /* Buffers. */
        for (int32_t i = 0; i < b->n_buffers; i++) {
                const blob_t *bl = &b->buffers[i];
                uint32_t data = bl->size && !bl->external ? write_vec(w, bl->data, (uint32_t) bl->size, 1, 16) : 0;
                tbl_t t;
                tbl_start(w, &t);
                if (bl->external) {
                        uint64_t size = bl->size, placeholder = 0;
                        tbl_scalar(w, &t, 2, &size, 8);
                        patches[*n_patches].field_ref = tbl_scalar(w, &t, 1, &placeholder, 8);
                        patches[*n_patches].buffer = i;
                        (*n_patches)++;
                }
                tbl_offset(w, &t, 0, data);
                refs[i] = tbl_end(w, &t);
        }
        uint32_t buffers = write_offsets(w, refs, (uint32_t) b->n_buffers);

        /* Operator codes. */
        for (int32_t i = 0; i < b->n_opcodes; i++) {
                const opcode_rec_t *o = &b->opcodes[i];
                uint32_t custom = o->custom ? write_string(w, o->custom) : 0;
                tbl_t t;
                tbl_start(w, &t);
                tbl_i32(w, &t, 3, o->builtin);
                tbl_i32(w, &t, 2, o->version);
                tbl_offset(w, &t, 1, custom);
                tbl_u8(w, &t, 0, (uint8_t) o->deprecated);
                refs[i] = tbl_end(w, &t);
        }
        uint32_t opcodes = write_offsets(w, refs, (uint32_t) b->n_opcodes);

        /* Subgraphs. */
        uint32_t *sg_refs = calloc((size_t) b->n_subgraphs + 1, sizeof(uint32_t));
        if (!sg_refs) {
                w->oom = true;
                free(refs);
                free(sub);
                return 0;
        }
        for (int32_t s = 0; s < b->n_subgraphs; s++) {
                const subgraph_rec_t *sg = &b->subgraphs[s];
                for (int32_t i = 0; i < sg->n_tensors; i++)
                        sub[i] = write_tensor(w, &sg->tensors[i]);
                uint32_t tensors = write_offsets(w, sub, (uint32_t) sg->n_tensors);
                for (int32_t i = 0; i < sg->n_ops; i++)
                        sub[i] = write_op(w, &sg->ops[i]);
                uint32_t ops = write_offsets(w, sub, (uint32_t) sg->n_ops);
                uint32_t in = write_vec(w, sg->inputs, (uint32_t) sg->n_inputs, 4, 4);
                uint32_t out = write_vec(w, sg->outputs, (uint32_t) sg->n_outputs, 4, 4);
                uint32_t name = sg->name ? write_string(w, sg->name) : 0;
                tbl_t t;
                tbl_start(w, &t);
                tbl_offset(w, &t, 0, tensors);
                tbl_offset(w, &t, 1, in);
                tbl_offset(w, &t, 2, out);
                tbl_offset(w, &t, 3, ops);
                tbl_offset(w, &t, 4, name);
                sg_refs[s] = tbl_end(w, &t);
        }
        uint32_t subgraphs = write_offsets(w, sg_refs, (uint32_t) b->n_subgraphs);
        free(sg_refs);

        /* Signatures. */
        uint32_t sigs = 0;
        if (b->n_sigs) {
                for (int32_t i = 0; i < b->n_sigs; i++) {
                        const sig_rec_t *s = &b->sigs[i];
                        uint32_t in = write_tensor_maps(w, s->in_names, s->in, s->n_in);
                        uint32_t out = write_tensor_maps(w, s->out_names, s->out, s->n_out);
                        uint32_t key = s->key ? write_string(w, s->key) : 0;
                        tbl_t t;
                        tbl_start(w, &t);
                        tbl_offset(w, &t, 0, in);
                        tbl_offset(w, &t, 1, out);
                        tbl_offset(w, &t, 2, key);
                        uint32_t sgi = (uint32_t) s->subgraph;
                        tbl_scalar(w, &t, 4, &sgi, 4);
                        refs[i] = tbl_end(w, &t);
                }
                sigs = write_offsets(w, refs, (uint32_t) b->n_sigs);
        }

        /* Metadata. */
        uint32_t meta = 0;
        if (b->n_meta) {
                for (int32_t i = 0; i < b->n_meta; i++) {
                        uint32_t name = b->meta[i].name ? write_string(w, b->meta[i].name) : 0;
                        tbl_t t;
                        tbl_start(w, &t);
                        tbl_offset(w, &t, 0, name);
                        uint32_t buf = (uint32_t) b->meta[i].buffer;
                        tbl_scalar(w, &t, 1, &buf, 4);
                        refs[i] = tbl_end(w, &t);
                }
                meta = write_offsets(w, refs, (uint32_t) b->n_meta);
        }
        uint32_t description = b->description ? write_string(w, b->description) : 0;
        free(refs);
        free(sub);

        tbl_t t;
        tbl_start(w, &t);
        tbl_scalar(w, &t, 0, &b->version, 4);
        tbl_offset(w, &t, 1, opcodes);
        tbl_offset(w, &t, 2, subgraphs);
        tbl_offset(w, &t, 3, description);
        tbl_offset(w, &t, 4, buffers);
        tbl_offset(w, &t, 6, meta);
        tbl_offset(w, &t, 7, sigs);
        return tbl_end(w, &t);
}

uint8_t *tfb_finish(tfb_t *b, size_t *ret_size) {
        wbuf_t w = { .minalign = 16 };
        patch_t *patches = calloc((size_t) b->n_buffers + 1, sizeof(patch_t));
        if (!patches)
                return NULL;
        size_t n_patches = 0;
        uint32_t root = write_model(&w, b, patches, &n_patches);
        /* Root offset and file identifier, padded to the largest alignment. */
        prep(&w, w.minalign, 8);
        push(&w, "TFL3", 4);
        prep(&w, 4, 0);
        uint32_t off = ref(&w) + 4 - root;
        push(&w, &off, 4);
        if (w.oom) {
                free(w.mem);
                free(patches);
                return NULL;
        }

        size_t fb = w.len, total = fb;
        for (size_t k = 0; k < n_patches; k++)
                total = (total + 15) / 16 * 16 + b->buffers[patches[k].buffer].size;
        uint8_t *out = aligned_alloc(16, (total + 15) / 16 * 16);
        if (!out) {
                free(w.mem);
                free(patches);
                return NULL;
        }
        memset(out, 0, (total + 15) / 16 * 16);
        memcpy(out, w.mem + w.cap - fb, fb);
        size_t pos = fb;
        for (size_t k = 0; k < n_patches; k++) {
                const blob_t *bl = &b->buffers[patches[k].buffer];
                pos = (pos + 15) / 16 * 16;
                if (bl->size)
                        memcpy(out + pos, bl->data, bl->size);
                uint64_t at = pos;
                memcpy(out + fb - patches[k].field_ref, &at, 8);
                pos += bl->size;
        }
        free(w.mem);
        free(patches);
        *ret_size = total;
        return out;
}
