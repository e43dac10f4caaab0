/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Label files from TFLite Metadata: the "TFLITE_METADATA" buffer (a
 * ModelMetadata flatbuffer, metadata_schema.fbs) names associated files;
 * their bytes are in a zip archive appended to the model file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "cleanup.h"
#include "eval.h"
#include "fbt.h"
#include "model.h"

/* metadata_schema.fbs field ids (declaration order). */
enum {
        MODEL_METADATA_SUBGRAPH_METADATA = 3,
        MODEL_METADATA_ASSOCIATED_FILES = 6,
        SUBGRAPH_METADATA_OUTPUT_TENSOR_METADATA = 3,
        SUBGRAPH_METADATA_ASSOCIATED_FILES = 4,
        TENSOR_METADATA_ASSOCIATED_FILES = 6,
        ASSOCIATED_FILE_NAME = 0,
        ASSOCIATED_FILE_TYPE = 2,
};

/* AssociatedFileType */
enum {
        FILE_TENSOR_AXIS_LABELS = 2,
        FILE_TENSOR_VALUE_LABELS = 3,
};

/* The label file in a vector of AssociatedFile: axis labels first (a
 * classifier's classes), else value labels (a detector's class ids). */
static const char *files_find(fbt_table_t t, unsigned id) {
        fbt_vec_t v = fbt_vector(t, id, 4);
        const char *value = NULL;

        for (uint32_t i = 0; i < v.n; i++) {
                fbt_table_t f = fbt_vector_table(t, v, i);
                int8_t type = fbt_i8(f, ASSOCIATED_FILE_TYPE, 0);
                const char *name = fbt_string(f, ASSOCIATED_FILE_NAME, NULL);

                if (!name)
                        continue;
                if (type == FILE_TENSOR_AXIS_LABELS)
                        return name;
                if (type == FILE_TENSOR_VALUE_LABELS && !value)
                        value = name;
        }
        return value;
}

static const char *metadata_label_file(const uint8_t *buf, size_t size, int32_t output) {
        fbt_table_t root = fbt_root(buf, size);
        fbt_vec_t sgs = fbt_vector(root, MODEL_METADATA_SUBGRAPH_METADATA, 4);
        const char *name = NULL;

        if (!fbt_present(root))
                return NULL;
        if (sgs.n > 0) {
                fbt_table_t sg = fbt_vector_table(root, sgs, 0);
                fbt_vec_t outs = fbt_vector(sg, SUBGRAPH_METADATA_OUTPUT_TENSOR_METADATA, 4);

                if (output >= 0 && (uint32_t) output < outs.n)
                        name = files_find(fbt_vector_table(sg, outs, (uint32_t) output),
                                          TENSOR_METADATA_ASSOCIATED_FILES);
                for (uint32_t i = 0; !name && i < outs.n; i++)
                        name = files_find(fbt_vector_table(sg, outs, i), TENSOR_METADATA_ASSOCIATED_FILES);
                if (!name)
                        name = files_find(sg, SUBGRAPH_METADATA_ASSOCIATED_FILES);
        }
        return name ? name : files_find(root, MODEL_METADATA_ASSOCIATED_FILES);
}

DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);

static void zip_discardp(zip_t **z) {
        if (*z)
                zip_discard(*z);
}

/* Associated files are small text files; a cap keeps a hostile archive
 * entry from asking for gigabytes. */
#define LABEL_FILE_MAX (64u << 20)

int eval_labels_from_model(const char *model_path, int32_t output, eval_labels_t *ret, char **ret_name,
                           char *err, size_t err_size) {
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        _cleanup_(zip_discardp) zip_t *z = NULL;
        _cleanup_free_ char *text = NULL;
        const char *name = NULL;
        char msg[256] = "";
        int r;

        r = rt_model_load_file(model_path, &m, msg, sizeof(msg));
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", model_path, msg[0] ? msg : strerror(-r));
                return r;
        }
        for (int32_t i = 0; i < m->n_metadata && !name; i++)
                if (m->metadata[i].name && strcmp(m->metadata[i].name, "TFLITE_METADATA") == 0 && m->metadata[i].data)
                        name = metadata_label_file(m->metadata[i].data, m->metadata[i].size, output);
        if (!name) {
                snprintf(err, err_size, "%s: its TFLite Metadata names no label file", model_path);
                return -ENOENT;
        }
        /* libzip finds the archive from its end record, so the flatbuffer
         * in front of it does not matter. */
        zip_error_t ze;
        zip_error_init(&ze);
        zip_source_t *src = zip_source_buffer_create(m->buf, m->size, 0, &ze);
        if (!src) {
                zip_error_fini(&ze);
                return -ENOMEM;
        }
        z = zip_open_from_source(src, ZIP_RDONLY, &ze);
        if (!z) {
                zip_source_free(src);
                snprintf(err, err_size, "%s: no associated-files archive: %s", model_path, zip_error_strerror(&ze));
                zip_error_fini(&ze);
                return -ENOENT;
        }
        zip_error_fini(&ze);
        zip_stat_t st;
        if (zip_stat(z, name, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE)) {
                snprintf(err, err_size, "%s: label file '%s' is not in the archive", model_path, name);
                return -ENOENT;
        }
        if (st.size > LABEL_FILE_MAX) {
                snprintf(err, err_size, "%s: label file '%s' is larger than 64 MiB", model_path, name);
                return -EINVAL;
        }
        text = malloc(st.size + 1);
        if (!text)
                return -ENOMEM;
        zip_file_t *f = zip_fopen(z, name, 0);
        zip_int64_t got = f ? zip_fread(f, text, st.size) : -1;
        if (f)
                (void) zip_fclose(f);
        if (got < 0 || (zip_uint64_t) got != st.size) {
                snprintf(err, err_size, "%s: cannot read '%s': %s", model_path, name, zip_strerror(z));
                return -EINVAL;
        }
        _cleanup_free_ char *name_copy = ret_name ? strdup(name) : NULL;
        if (ret_name && !name_copy)
                return -ENOMEM;
        r = eval_labels_parse(text, st.size, ret);
        if (r < 0) {
                snprintf(err, err_size, "%s: label file '%s' is empty", model_path, name);
                return r;
        }
        if (ret_name)
                *ret_name = TAKE_PTR(name_copy);
        return 0;
}
