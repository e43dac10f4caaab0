/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TfLiteModel: acceld's reader verifies and reads the model once, here, so
 * that a malformed file fails at TfLiteModelCreate() as with TensorFlow
 * Lite, and both backends share what it read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#include "model.h"
#include "tflite-internal.h"

static TfLiteModel *model_new(rt_model_t *rt, const char *path) {
        TfLiteModel *m = calloc(1, sizeof(*m));
        if (!m)
                return NULL;
        if (path && !(m->path = strdup(path))) {
                free(m);
                return NULL;
        }
        atomic_init(&m->refs, 1);
        (void) pthread_mutex_init(&m->lock, NULL);
        m->rt = rt;
        return m;
}

TfLiteModel *TfLiteModelCreate(const void *model_data, size_t model_size) {
        char err[TFL_ERR_MAX] = "";
        rt_model_t *rt = NULL;
        if (!model_data || model_size == 0) {
                tfl__report(NULL, NULL, "ERROR: TfLiteModelCreate: no model data");
                return NULL;
        }
        /* Borrowed, as TensorFlow Lite does: the caller keeps the buffer. */
        int r = rt_model_load_buffer(model_data, model_size, false, &rt, err, sizeof(err));
        if (r < 0) {
                tfl__report(NULL, NULL, "ERROR: the model is not a valid TensorFlow Lite model: %s",
                            err[0] ? err : strerror(-r));
                return NULL;
        }
        TfLiteModel *m = model_new(rt, NULL);
        if (!m)
                rt_model_free(rt);
        return m;
}

TfLiteModel *TfLiteModelCreateFromFile(const char *model_path) {
        char err[TFL_ERR_MAX] = "";
        rt_model_t *rt = NULL;
        if (!model_path) {
                tfl__report(NULL, NULL, "ERROR: TfLiteModelCreateFromFile: no path");
                return NULL;
        }
        int r = rt_model_load_file(model_path, &rt, err, sizeof(err));
        if (r < 0) {
                tfl__report(NULL, NULL, "ERROR: could not load model %s: %s", model_path,
                            err[0] ? err : strerror(-r));
                return NULL;
        }
        TfLiteModel *m = model_new(rt, model_path);
        if (!m)
                rt_model_free(rt);
        return m;
}

TfLiteModel *tfl__model_ref(TfLiteModel *m) {
        if (m)
                atomic_fetch_add(&m->refs, 1);
        return m;
}

TfLiteModel *tfl__model_unref(TfLiteModel *m) {
        if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
                return NULL;
        accel_model_delete(m->served);
        rt_model_free(m->rt);
        (void) pthread_mutex_destroy(&m->lock);
        free(m->path);
        free(m);
        return NULL;
}

void TfLiteModelDelete(TfLiteModel *model) {
        (void) tfl__model_unref(model);
}

int tfl__model_served(TfLiteModel *m, accel_model_t **ret, char *err) {
        int r = 0;
        (void) pthread_mutex_lock(&m->lock);
        if (!m->served) {
                /* A file goes to acceld as an fd (it maps it); a buffer is
                 * copied once into libaccel's model. */
                r = m->path ? accel_model_create_from_file(m->path, &m->served)
                            : accel_model_create(m->rt->buf, m->rt->size, &m->served);
                if (r < 0)
                        snprintf(err, TFL_ERR_MAX, "%s", accel_last_error()[0] ? accel_last_error() : strerror(-r));
        }
        if (r == 0)
                *ret = m->served;
        (void) pthread_mutex_unlock(&m->lock);
        return r;
}
