/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for the .tflite reader: every input goes through
 * rt_model_verify() and rt_model_load_buffer(); a loaded model is walked in
 * full and its invariants are checked, so that a verifier gap shows up as an
 * abort or a sanitizer report rather than passing silently.
 *
 * Built two ways from this one file:
 *  - with -Dfuzz=true (clang): a libFuzzer target, -fsanitize=fuzzer,address;
 *  - always: a replay program (FUZZ_REPLAY) that runs every file named on the
 *    command line, or found in a named directory, through the same entry
 *    point. The unit tests run it over ../shared/models and malformed/.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fbt.h"
#include "model.h"

#define CHECK(cond)                                                                  \
        do {                                                                         \
                if (!(cond)) {                                                       \
                        fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond,     \
                                __FILE__, __LINE__);                                 \
                        abort();                                                     \
                }                                                                    \
        } while (0)

static volatile uint8_t sink;

/* Touch every byte the model hands out, so that ASan checks them. */
static void touch(const void *p, size_t n) {
        const uint8_t *b = p;
        uint8_t x = 0;
        for (size_t i = 0; i < n; i++)
                x ^= b[i];
        sink ^= x;
}

static void check_ids(const int32_t *ids, int32_t n, int32_t n_tensors, bool allow_absent) {
        CHECK(n >= 0);
        CHECK(n == 0 || ids);
        for (int32_t i = 0; i < n; i++)
                CHECK((allow_absent && ids[i] == -1) || (ids[i] >= 0 && ids[i] < n_tensors));
}

static void walk(const rt_model_t *m) {
        CHECK(m->version == 3);
        CHECK(m->n_subgraphs >= 1);
        touch(m->description, strlen(m->description));
        for (int32_t s = 0; s < m->n_subgraphs; s++) {
                const rt_model_subgraph_t *sg = &m->subgraphs[s];
                touch(sg->name, strlen(sg->name));
                for (int32_t i = 0; i < sg->n_tensors; i++) {
                        const rt_model_tensor_t *t = &sg->tensors[i];
                        CHECK((unsigned) t->type < _RT_TYPE_MAX);
                        CHECK(t->rank >= 0 && t->rank <= RT_MAX_RANK);
                        uint64_t count = 1;
                        for (int32_t a = 0; a < t->rank; a++) {
                                CHECK(t->shape[a] >= 0);
                                count *= (uint64_t) t->shape[a];
                                CHECK(count <= RT_MODEL_MAX_TENSOR_BYTES);
                                if (t->has_shape_signature)
                                        CHECK(t->shape_signature[a] >= -1);
                        }
                        CHECK(t->buffer < m->n_buffers || (t->buffer == 0 && m->n_buffers == 0));
                        CHECK((t->data == NULL) == (t->data_bytes == 0));
                        touch(t->data, t->data_bytes);
                        size_t esize = rt_type_size(t->type);
                        if (t->data && !t->sparsity && esize > 0 && t->type != RT_TYPE_INT4)
                                CHECK(t->data_bytes == count * esize);
                        touch(t->name, strlen(t->name));
                        if (t->quant.n > 0) {
                                touch(t->quant.scale, t->quant.n * sizeof(float));
                                touch(t->quant.zero_point, t->quant.n * sizeof(int64_t));
                                CHECK(t->quant.axis >= 0);
                                CHECK(t->quant.axis < (t->rank > 0 ? t->rank : 1));
                                if (t->quant.n > 1)
                                        CHECK((size_t) t->shape[t->quant.axis] == t->quant.n);
                        }
                        if (t->sparsity) {
                                const rt_sparsity_t *sp = t->sparsity;
                                touch(sp->traversal_order, sp->n_traversal_order * sizeof(int32_t));
                                touch(sp->block_map, sp->n_block_map * sizeof(int32_t));
                                for (uint32_t k = 0; k < sp->n_dim_metadata; k++) {
                                        const rt_dim_metadata_t *d = &sp->dim_metadata[k];
                                        touch(d->array_segments.data,
                                              (size_t) d->array_segments.n * d->array_segments.elem_size);
                                        touch(d->array_indices.data,
                                              (size_t) d->array_indices.n * d->array_indices.elem_size);
                                }
                        }
                }
                check_ids(sg->inputs, sg->n_inputs, sg->n_tensors, false);
                check_ids(sg->outputs, sg->n_outputs, sg->n_tensors, false);
                for (int32_t o = 0; o < sg->n_ops; o++) {
                        const rt_model_op_t *op = &sg->ops[o];
                        CHECK(op->builtin_code >= 0);
                        const char *name = rt_model_op_name(op);
                        touch(name, strlen(name));
                        check_ids(op->inputs, op->n_inputs, sg->n_tensors, true);
                        check_ids(op->outputs, op->n_outputs, sg->n_tensors, false);
                        check_ids(op->intermediates, op->n_intermediates, sg->n_tensors, false);
                        touch(op->custom_options, op->custom_options_size);
                        rt_options_type_t want = rt_op_options_type(op->builtin_code);
                        CHECK(op->builtin_options_type == 0 || want == RT_OPTIONS_ANY ||
                              op->builtin_options_type == (uint8_t) want);
                        /* What a kernel's parse hook would do: read fields. */
                        for (unsigned id = 0; id < 8; id++) {
                                sink ^= (uint8_t) fbt_i32(op->builtin_options, id, 0);
                                fbt_vec_t v = fbt_vector(op->builtin_options, id, 4);
                                touch(v.data, (size_t) v.n * 4);
                        }
                }
        }
        for (int32_t i = 0; i < m->n_signatures; i++) {
                const rt_signature_t *sig = &m->signatures[i];
                CHECK(sig->subgraph_index >= 0 && sig->subgraph_index < m->n_subgraphs);
                int32_t n_tensors = m->subgraphs[sig->subgraph_index].n_tensors;
                for (int32_t k = 0; k < sig->n_inputs; k++) {
                        CHECK(sig->inputs[k].tensor_index >= 0 && sig->inputs[k].tensor_index < n_tensors);
                        touch(sig->inputs[k].name, strlen(sig->inputs[k].name));
                }
                for (int32_t k = 0; k < sig->n_outputs; k++)
                        CHECK(sig->outputs[k].tensor_index >= 0 && sig->outputs[k].tensor_index < n_tensors);
        }
        for (int32_t i = 0; i < m->n_metadata; i++) {
                CHECK(m->metadata[i].buffer < m->n_buffers);
                touch(m->metadata[i].data, m->metadata[i].size);
        }
        if (m->min_runtime_version)
                touch(m->min_runtime_version, strlen(m->min_runtime_version));
        touch(m->reduced_precision_support, m->reduced_precision_support_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char err[256], err2[256];
        int v = rt_model_verify(data, size, err, sizeof(err));
        CHECK(v == 0 || v == -EINVAL);
        if (v < 0)
                CHECK(err[0] != '\0');
        rt_model_t *m = NULL;
        int r = rt_model_load_buffer(data, size, true, &m, err2, sizeof(err2));
        /* The loader runs the same verifier: same verdict, same message. */
        CHECK(r == v || r == -ENOMEM);
        if (r == -EINVAL)
                CHECK(strcmp(err, err2) == 0);
        if (r == 0) {
                walk(m);
                rt_model_free(m);
        }
        return 0;
}

#ifdef FUZZ_REPLAY
static int replay_file(const char *path, size_t *count) {
        FILE *f = fopen(path, "rb");
        if (!f) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -errno;
        }
        uint8_t *buf = NULL;
        size_t size = 0, cap = 0;
        for (;;) {
                if (size == cap) {
                        cap = cap ? cap * 2 : 65536;
                        uint8_t *n = realloc(buf, cap);
                        if (!n) {
                                free(buf);
                                fclose(f);
                                return -ENOMEM;
                        }
                        buf = n;
                }
                size_t got = fread(buf + size, 1, cap - size, f);
                if (got == 0)
                        break;
                size += got;
        }
        fclose(f);
        /* An exact-size copy, so that ASan catches reads past the end. */
        uint8_t *exact = malloc(size ? size : 1);
        if (!exact) {
                free(buf);
                return -ENOMEM;
        }
        if (size)
                memcpy(exact, buf, size);
        free(buf);
        (void) LLVMFuzzerTestOneInput(exact, size);
        free(exact);
        (*count)++;
        return 0;
}

int main(int argc, char **argv) {
        if (argc < 2) {
                fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
                return 2;
        }
        size_t count = 0;
        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "SKIP: %s: %s\n", argv[i], strerror(errno));
                        return 77;
                }
                if (!S_ISDIR(st.st_mode)) {
                        if (replay_file(argv[i], &count) < 0)
                                return 1;
                        continue;
                }
                DIR *d = opendir(argv[i]);
                if (!d) {
                        fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
                        return 1;
                }
                struct dirent *e;
                while ((e = readdir(d))) {
                        char path[4096];
                        (void) snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
                        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                                continue;
                        if (replay_file(path, &count) < 0) {
                                closedir(d);
                                return 1;
                        }
                }
                closedir(d);
        }
        printf("replayed %zu inputs\n", count);
        return 0;
}
#endif
