/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .tflite loader: maps or borrows the bytes, runs the verifier over all
 * of them, then builds the rt_model_t arrays. Everything that can point into
 * the mapping does; only small per-tensor quantization arrays, sparsity
 * metadata and signature lists are allocated. Reads go through the fbt
 * accessors, so even a verifier bug cannot make the loader leave the buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "model-internal.h"

fbt_table_t rt__model_root(const uint8_t *buf, size_t size) {
        return fbt_root(buf, size < RT__FB_MAX_SIZE ? size : RT__FB_MAX_SIZE);
}

int32_t rt__opcode_code(fbt_table_t opcode) {
        int32_t deprecated = fbt_i8(opcode, RT__OPCODE_DEPRECATED_BUILTIN_CODE, 0);
        int32_t code = fbt_i32(opcode, RT__OPCODE_BUILTIN_CODE, 0);
        return code > deprecated ? code : deprecated;
}

const uint8_t *rt__buffer_bytes(const uint8_t *buf, size_t file_size, fbt_table_t root, uint32_t index,
                                size_t *ret_size) {
        *ret_size = 0;
        fbt_vec_t buffers = fbt_vector(root, RT__MODEL_BUFFERS, 4);
        if (index >= buffers.n)
                return NULL;
        fbt_table_t b = fbt_vector_table(root, buffers, index);
        uint64_t off = fbt_u64(b, RT__BUFFER_OFFSET, 0), size = fbt_u64(b, RT__BUFFER_SIZE, 0);
        if (off > 1) {
                if (off > file_size || size > file_size - off || size == 0)
                        return NULL;
                *ret_size = (size_t) size;
                return buf + off;
        }
        fbt_vec_t data = fbt_vector(b, RT__BUFFER_DATA, 1);
        if (data.n == 0)
                return NULL;
        *ret_size = data.n;
        return data.data;
}

__attribute__((format(printf, 3, 4)))
static int load_error(char *err, size_t err_size, const char *fmt, ...) {
        if (err && err_size) {
                va_list ap;
                va_start(ap, fmt);
                (void) vsnprintf(err, err_size, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

static void sparsity_free(rt_sparsity_t *s) {
        if (!s)
                return;
        free(s->dim_metadata);
        free(s);
}

rt_model_t *rt_model_free(rt_model_t *m) {
        if (!m)
                return NULL;
        for (int32_t s = 0; m->subgraphs && s < m->n_subgraphs; s++) {
                rt_model_subgraph_t *sg = &m->subgraphs[s];
                for (int32_t t = 0; sg->tensors && t < sg->n_tensors; t++) {
                        free((void *) sg->tensors[t].quant.scale);
                        free((void *) sg->tensors[t].quant.zero_point);
                        sparsity_free(sg->tensors[t].sparsity);
                }
                free(sg->tensors);
                free(sg->ops);
        }
        free(m->subgraphs);
        for (int32_t i = 0; m->signatures && i < m->n_signatures; i++) {
                free(m->signatures[i].inputs);
                free(m->signatures[i].outputs);
        }
        free(m->signatures);
        free(m->metadata);
        free(m->min_runtime_version);
        for (size_t i = 0; i < m->n_blobs; i++)
                free(m->blobs[i]);
        free(m->blobs);
        if (m->mapping)
                (void) munmap(m->mapping, m->mapping_size);
        free(m->owned_buf);
        free(m);
        return NULL;
}

DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free)

static const char *str_or_empty(const char *s) {
        return s ? s : "";
}

/* int32 vector in the mapping: 4-aligned there because the verifier checked
 * its position and the mapping base is at least 8-aligned. */
static const int32_t *vec_i32(fbt_vec_t v, int32_t *ret_n) {
        *ret_n = (int32_t) v.n;
        return v.n ? (const int32_t *) (const void *) v.data : NULL;
}

/* Constant data must be aligned for its element type; a misaligned buffer
 * (legal in FlatBuffers, rare in practice) gets an aligned private copy. */
static int place_data(rt_model_t *m, rt_model_tensor_t *t, const uint8_t *data, size_t bytes) {
        size_t align = t->type == RT_TYPE_STRING ? 4 : rt_type_size(t->type);
        if (align > 8)
                align = 8;
        if (align <= 1 || ((uintptr_t) data % align) == 0) {
                t->data = data;
                return 0;
        }
        void **blobs = realloc(m->blobs, (m->n_blobs + 1) * sizeof(void *));
        if (!blobs)
                return -ENOMEM;
        m->blobs = blobs;
        void *copy = aligned_alloc(16, (bytes + 15) / 16 * 16);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, data, bytes);
        m->blobs[m->n_blobs++] = copy;
        t->data = copy;
        return 0;
}

static void sparse_index(fbt_table_t dm, unsigned type_id, unsigned value_id, rt_sparse_index_t *ret) {
        static const uint8_t elem[] = { 0, 4, 2, 1 };
        uint8_t type = fbt_u8(dm, type_id, 0);
        *ret = (rt_sparse_index_t) { NULL, 0, 0 };
        if (type == RT__SPARSE_INDEX_NONE || type > RT__SPARSE_INDEX_UINT8)
                return;
        fbt_vec_t v = fbt_vector(fbt_table(dm, value_id), 0, elem[type]);
        ret->data = v.data;
        ret->n = v.n;
        ret->elem_size = elem[type];
}

static int build_sparsity(fbt_table_t sp, rt_sparsity_t **ret) {
        _cleanup_free_ rt_sparsity_t *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        int32_t n;
        s->traversal_order = vec_i32(fbt_vector(sp, RT__SPARSITY_TRAVERSAL_ORDER, 4), &n);
        s->n_traversal_order = (uint32_t) n;
        s->block_map = vec_i32(fbt_vector(sp, RT__SPARSITY_BLOCK_MAP, 4), &n);
        s->n_block_map = (uint32_t) n;
        fbt_vec_t dims = fbt_vector(sp, RT__SPARSITY_DIM_METADATA, 4);
        if (dims.n) {
                s->dim_metadata = calloc(dims.n, sizeof(rt_dim_metadata_t));
                if (!s->dim_metadata)
                        return -ENOMEM;
        }
        s->n_dim_metadata = dims.n;
        for (uint32_t k = 0; k < dims.n; k++) {
                fbt_table_t dm = fbt_vector_table(sp, dims, k);
                rt_dim_metadata_t *d = &s->dim_metadata[k];
                d->format = fbt_i8(dm, RT__DIM_FORMAT, 0) == 1 ? RT_DIM_SPARSE_CSR : RT_DIM_DENSE;
                d->dense_size = fbt_i32(dm, RT__DIM_DENSE_SIZE, 0);
                sparse_index(dm, RT__DIM_ARRAY_SEGMENTS_TYPE, RT__DIM_ARRAY_SEGMENTS, &d->array_segments);
                sparse_index(dm, RT__DIM_ARRAY_INDICES_TYPE, RT__DIM_ARRAY_INDICES, &d->array_indices);
        }
        *ret = TAKE_PTR(s);
        return 0;
}

static int build_tensor(rt_model_t *m, fbt_table_t root, fbt_table_t t, rt_model_tensor_t *ret) {
        ret->type = (rt_type_t) fbt_i8(t, RT__TENSOR_TYPE, 0);
        fbt_vec_t shape = fbt_vector(t, RT__TENSOR_SHAPE, 4);
        ret->rank = (int32_t) (shape.n <= RT_MAX_RANK ? shape.n : RT_MAX_RANK);
        for (int32_t a = 0; a < ret->rank; a++)
                ret->shape[a] = fbt_vec_i32(shape, (uint32_t) a);
        fbt_vec_t sig = fbt_vector(t, RT__TENSOR_SHAPE_SIGNATURE, 4);
        if (sig.data) {
                ret->has_shape_signature = true;
                for (int32_t a = 0; a < ret->rank; a++)
                        ret->shape_signature[a] = fbt_vec_i32(sig, (uint32_t) a);
        }
        ret->buffer = fbt_u32(t, RT__TENSOR_BUFFER, 0);
        ret->name = str_or_empty(fbt_string(t, RT__TENSOR_NAME, NULL));
        ret->is_variable = fbt_bool(t, RT__TENSOR_IS_VARIABLE, false);
        ret->has_rank = fbt_bool(t, RT__TENSOR_HAS_RANK, false);

        size_t bytes;
        const uint8_t *data = rt__buffer_bytes(m->buf, m->size, root, ret->buffer, &bytes);
        if (data) {
                int r = place_data(m, ret, data, bytes);
                if (r < 0)
                        return r;
                ret->data_bytes = bytes;
        }

        fbt_table_t q = fbt_table(t, RT__TENSOR_QUANTIZATION);
        fbt_vec_t scale = fbt_vector(q, RT__QUANT_SCALE, 4);
        fbt_vec_t zp = fbt_vector(q, RT__QUANT_ZERO_POINT, 8);
        if (scale.n > 0 && zp.n == scale.n) {
                float *s = malloc(scale.n * sizeof(float));
                int64_t *z = malloc(scale.n * sizeof(int64_t));
                if (!s || !z) {
                        free(s);
                        free(z);
                        return -ENOMEM;
                }
                for (uint32_t k = 0; k < scale.n; k++) {
                        s[k] = fbt_vec_f32(scale, k);
                        z[k] = fbt_vec_i64(zp, k);
                }
                ret->quant.n = scale.n;
                ret->quant.scale = s;
                ret->quant.zero_point = z;
                int32_t qd = fbt_i32(q, RT__QUANT_QUANTIZED_DIMENSION, 0);
                /* An axis past the rank (person_detect's rank-1 biases say 3)
                 * was tolerated by the verifier only where the only
                 * meaningful axis is 0: read it as 0. */
                ret->quant.axis = qd >= 0 && qd < ret->rank ? qd : 0;
        }

        fbt_table_t sp = fbt_table(t, RT__TENSOR_SPARSITY);
        if (fbt_present(sp))
                return build_sparsity(sp, &ret->sparsity);
        return 0;
}

static void build_op(const rt_model_t *m, fbt_table_t root, fbt_vec_t opcodes, fbt_table_t op, rt_model_op_t *ret) {
        fbt_table_t oc = fbt_vector_table(root, opcodes, fbt_u32(op, RT__OP_OPCODE_INDEX, 0));
        ret->builtin_code = rt__opcode_code(oc);
        ret->version = fbt_i32(oc, RT__OPCODE_VERSION, 1);
        if (ret->builtin_code == RT_BUILTIN_CUSTOM)
                ret->custom_code = str_or_empty(fbt_string(oc, RT__OPCODE_CUSTOM_CODE, NULL));
        ret->inputs = vec_i32(fbt_vector(op, RT__OP_INPUTS, 4), &ret->n_inputs);
        ret->outputs = vec_i32(fbt_vector(op, RT__OP_OUTPUTS, 4), &ret->n_outputs);
        ret->intermediates = vec_i32(fbt_vector(op, RT__OP_INTERMEDIATES, 4), &ret->n_intermediates);
        ret->builtin_options_type = fbt_u8(op, RT__OP_BUILTIN_OPTIONS_TYPE, 0);
        ret->builtin_options = fbt_table(op, RT__OP_BUILTIN_OPTIONS);
        ret->builtin_options_2_type = fbt_u8(op, RT__OP_BUILTIN_OPTIONS_2_TYPE, 0);
        ret->builtin_options_2 = fbt_table(op, RT__OP_BUILTIN_OPTIONS_2);
        uint64_t off = fbt_u64(op, RT__OP_LARGE_CUSTOM_OPTIONS_OFFSET, 0);
        uint64_t size = fbt_u64(op, RT__OP_LARGE_CUSTOM_OPTIONS_SIZE, 0);
        if (off > 1 && off <= m->size && size <= m->size - off) {
                ret->custom_options = size ? m->buf + off : NULL;
                ret->custom_options_size = (size_t) size;
        } else {
                fbt_vec_t custom = fbt_vector(op, RT__OP_CUSTOM_OPTIONS, 1);
                ret->custom_options = custom.n ? custom.data : NULL;
                ret->custom_options_size = custom.n;
        }
}

static int build_subgraph(rt_model_t *m, fbt_table_t root, fbt_table_t sg, rt_model_subgraph_t *ret) {
        ret->name = str_or_empty(fbt_string(sg, RT__SUBGRAPH_NAME, NULL));
        fbt_vec_t tensors = fbt_vector(sg, RT__SUBGRAPH_TENSORS, 4);
        fbt_vec_t ops = fbt_vector(sg, RT__SUBGRAPH_OPERATORS, 4);
        if (tensors.n) {
                ret->tensors = calloc(tensors.n, sizeof(rt_model_tensor_t));
                if (!ret->tensors)
                        return -ENOMEM;
        }
        ret->n_tensors = (int32_t) tensors.n;
        for (uint32_t i = 0; i < tensors.n; i++) {
                int r = build_tensor(m, root, fbt_vector_table(sg, tensors, i), &ret->tensors[i]);
                if (r < 0)
                        return r;
        }
        if (ops.n) {
                ret->ops = calloc(ops.n, sizeof(rt_model_op_t));
                if (!ret->ops)
                        return -ENOMEM;
        }
        ret->n_ops = (int32_t) ops.n;
        fbt_vec_t opcodes = fbt_vector(root, RT__MODEL_OPERATOR_CODES, 4);
        for (uint32_t i = 0; i < ops.n; i++)
                build_op(m, root, opcodes, fbt_vector_table(sg, ops, i), &ret->ops[i]);
        ret->inputs = vec_i32(fbt_vector(sg, RT__SUBGRAPH_INPUTS, 4), &ret->n_inputs);
        ret->outputs = vec_i32(fbt_vector(sg, RT__SUBGRAPH_OUTPUTS, 4), &ret->n_outputs);
        return 0;
}

static int build_tensor_maps(fbt_table_t sd, unsigned id, rt_signature_io_t **ret, int32_t *ret_n) {
        fbt_vec_t maps = fbt_vector(sd, id, 4);
        *ret_n = 0;
        if (!maps.n)
                return 0;
        *ret = calloc(maps.n, sizeof(rt_signature_io_t));
        if (!*ret)
                return -ENOMEM;
        *ret_n = (int32_t) maps.n;
        for (uint32_t k = 0; k < maps.n; k++) {
                fbt_table_t tm = fbt_vector_table(sd, maps, k);
                (*ret)[k].name = str_or_empty(fbt_string(tm, RT__TENSORMAP_NAME, NULL));
                (*ret)[k].tensor_index = (int32_t) fbt_u32(tm, RT__TENSORMAP_TENSOR_INDEX, 0);
        }
        return 0;
}

static int build_model(rt_model_t *m) {
        fbt_table_t root = rt__model_root(m->buf, m->size);
        m->version = fbt_u32(root, RT__MODEL_VERSION, 0);
        m->description = str_or_empty(fbt_string(root, RT__MODEL_DESCRIPTION, NULL));
        m->n_buffers = fbt_vector(root, RT__MODEL_BUFFERS, 4).n;

        fbt_vec_t subgraphs = fbt_vector(root, RT__MODEL_SUBGRAPHS, 4);
        m->subgraphs = calloc(subgraphs.n ? subgraphs.n : 1, sizeof(rt_model_subgraph_t));
        if (!m->subgraphs)
                return -ENOMEM;
        m->n_subgraphs = (int32_t) subgraphs.n;
        for (uint32_t s = 0; s < subgraphs.n; s++) {
                int r = build_subgraph(m, root, fbt_vector_table(root, subgraphs, s), &m->subgraphs[s]);
                if (r < 0)
                        return r;
        }

        fbt_vec_t sigs = fbt_vector(root, RT__MODEL_SIGNATURE_DEFS, 4);
        if (sigs.n) {
                m->signatures = calloc(sigs.n, sizeof(rt_signature_t));
                if (!m->signatures)
                        return -ENOMEM;
                m->n_signatures = (int32_t) sigs.n;
        }
        for (uint32_t i = 0; i < sigs.n; i++) {
                fbt_table_t sd = fbt_vector_table(root, sigs, i);
                rt_signature_t *sig = &m->signatures[i];
                sig->key = str_or_empty(fbt_string(sd, RT__SIGNATURE_KEY, NULL));
                sig->subgraph_index = (int32_t) fbt_u32(sd, RT__SIGNATURE_SUBGRAPH_INDEX, 0);
                int r = build_tensor_maps(sd, RT__SIGNATURE_INPUTS, &sig->inputs, &sig->n_inputs);
                if (r >= 0)
                        r = build_tensor_maps(sd, RT__SIGNATURE_OUTPUTS, &sig->outputs, &sig->n_outputs);
                if (r < 0)
                        return r;
        }

        fbt_vec_t metadata = fbt_vector(root, RT__MODEL_METADATA, 4);
        if (metadata.n) {
                m->metadata = calloc(metadata.n, sizeof(rt_metadata_t));
                if (!m->metadata)
                        return -ENOMEM;
                m->n_metadata = (int32_t) metadata.n;
        }
        for (uint32_t i = 0; i < metadata.n; i++) {
                fbt_table_t md = fbt_vector_table(root, metadata, i);
                rt_metadata_t *e = &m->metadata[i];
                e->name = str_or_empty(fbt_string(md, RT__METADATA_NAME, NULL));
                e->buffer = fbt_u32(md, RT__METADATA_BUFFER, 0);
                e->data = rt__buffer_bytes(m->buf, m->size, root, e->buffer, &e->size);
                if (strcmp(e->name, "min_runtime_version") == 0 && !m->min_runtime_version) {
                        /* A NUL-padded version string such as "1.5.0". */
                        m->min_runtime_version = strndup(e->data ? (const char *) e->data : "", e->size);
                        if (!m->min_runtime_version)
                                return -ENOMEM;
                } else if (strcmp(e->name, "reduced_precision_support") == 0) {
                        m->reduced_precision_support = e->data;
                        m->reduced_precision_support_size = e->size;
                }
        }
        return 0;
}

/* Verify and build; on success the model owns whatever m already holds. */
static int load(rt_model_t *m, rt_model_t **ret, char *err, size_t err_size) {
        _cleanup_(rt_model_freep) rt_model_t *owned = m;
        int r = rt_model_verify(m->buf, m->size, err, err_size);
        if (r < 0)
                return r;
        r = build_model(m);
        if (r < 0) {
                if (err && err_size)
                        (void) snprintf(err, err_size, "out of memory while loading the model");
                return r;
        }
        *ret = TAKE_PTR(owned);
        return 0;
}

int rt_model_load_buffer(const void *buf, size_t size, bool copy, rt_model_t **ret, char *err, size_t err_size) {
        if (err && err_size)
                err[0] = '\0';
        if (!ret || (!buf && size > 0))
                return load_error(err, err_size, "invalid arguments");
        rt_model_t *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        /* Typed pointers into the buffer need an 8-aligned base: a misaligned
         * borrowed buffer is copied as if copy were true. */
        if (size > 0 && (copy || ((uintptr_t) buf % 8) != 0)) {
                m->owned_buf = malloc(size);
                if (!m->owned_buf) {
                        free(m);
                        return -ENOMEM;
                }
                memcpy(m->owned_buf, buf, size);
                m->buf = m->owned_buf;
        } else
                m->buf = buf;
        m->size = size;
        return load(m, ret, err, err_size);
}

/* Map `size` bytes of fd and load them. */
static int load_mapped(int fd, size_t size, rt_model_t **ret, char *err, size_t err_size) {
        void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
                int r = -errno;
                (void) load_error(err, err_size, "cannot map the model: %s", strerror(-r));
                return r;
        }
        rt_model_t *m = calloc(1, sizeof(*m));
        if (!m) {
                (void) munmap(map, size);
                return -ENOMEM;
        }
        m->mapping = map;
        m->mapping_size = size;
        m->buf = map;
        m->size = size;
        return load(m, ret, err, err_size);
}

/* fstat fd: a regular file of at least 8 bytes; its size in *ret_size. */
static int regular_size(int fd, size_t *ret_size, char *err, size_t err_size) {
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                (void) load_error(err, err_size, "cannot stat the model: %s", strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode))
                return load_error(err, err_size, "not a regular file");
        if (st.st_size < 8)
                return load_error(err, err_size, "not a TFLite model: %lld bytes is too small", (long long) st.st_size);
        if ((uint64_t) st.st_size > SIZE_MAX)
                return load_error(err, err_size, "model file too large");
        *ret_size = (size_t) st.st_size;
        return 0;
}

int rt_model_load_fd(int fd, rt_model_t **ret, char *err, size_t err_size) {
        const int sealed = F_SEAL_SHRINK | F_SEAL_WRITE;
        size_t size, got = 0;
        int r;

        if (err && err_size)
                err[0] = '\0';
        if (fd < 0 || !ret)
                return load_error(err, err_size, "invalid arguments");
        /* Seals before the size: once a memfd can neither shrink nor change,
         * its size is final and a mapping of it can never fault. */
        int seals = fcntl(fd, F_GET_SEALS);
        bool map = seals >= 0 && (seals & sealed) == sealed;
        r = regular_size(fd, &size, err, err_size);
        if (r < 0)
                return r;
        if (map)
                return load_mapped(fd, size, ret, err, err_size);
        /* Anything else can be truncated or rewritten under a mapping (a
         * SIGBUS, or bytes changing after verification): read a copy. */
        rt_model_t *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->owned_buf = malloc(size);
        if (!m->owned_buf) {
                free(m);
                return -ENOMEM;
        }
        while (got < size) {
                ssize_t n = pread(fd, (uint8_t *) m->owned_buf + got, size - got, (off_t) got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        rt_model_free(m);
                        (void) load_error(err, err_size, "cannot read the model: %s", strerror(-r));
                        return r;
                }
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        m->buf = m->owned_buf;
        m->size = got;
        return load(m, ret, err, err_size);
}

int rt_model_load_file(const char *path, rt_model_t **ret, char *err, size_t err_size) {
        if (err && err_size)
                err[0] = '\0';
        if (!path || !ret)
                return load_error(err, err_size, "invalid arguments");
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                int r = -errno;
                if (err && err_size)
                        (void) snprintf(err, err_size, "cannot open %s: %s", path, strerror(-r));
                return r;
        }
        /* The caller's own file, mapped in place (a file another process
         * truncates meanwhile faults this caller; acceld never loads a
         * client's file by path). */
        size_t size;
        int r = regular_size(fd, &size, err, err_size);
        if (r < 0)
                return r;
        return load_mapped(fd, size, ret, err, err_size);
}
