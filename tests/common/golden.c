/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "golden.h"

const char *golden_shared_dir(void) {
        const char *d = getenv("ACCELD_SHARED_DIR");
        struct stat st;
        if (!d || !d[0] || stat(d, &st) < 0 || !S_ISDIR(st.st_mode))
                return NULL;
        return d;
}

static rt_type_t type_from_name(const char *s) {
        for (int t = 0; t < _RT_TYPE_MAX; t++)
                if (strcmp(rt_type_name((rt_type_t) t), s) == 0)
                        return (rt_type_t) t;
        return _RT_TYPE_MAX;
}

static char *join(const char *a, const char *b) {
        char *s = NULL;
        if (asprintf(&s, "%s/%s", a, b) < 0)
                return NULL;
        return s;
}

static const char *jstr(json_object *o, const char *key) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static void tol_parse(json_object *o, golden_tol_t *t) {
        memset(t, 0, sizeof(*t));
        t->max_mismatch_fraction = -1;
        if (!o || !json_object_is_type(o, json_type_object))
                return;
        t->present = true;
        json_object *v;
        if (json_object_object_get_ex(o, "atol", &v))
                t->atol = json_object_get_double(v);
        if (json_object_object_get_ex(o, "rtol", &v))
                t->rtol = json_object_get_double(v);
        if (json_object_object_get_ex(o, "steps", &v))
                t->steps = json_object_get_int64(v);
        if (json_object_object_get_ex(o, "max_mismatch_fraction", &v))
                t->max_mismatch_fraction = json_object_get_double(v);
}

static int tensor_parse(json_object *o, const char *dir, golden_tensor_t *t) {
        const char *name = jstr(o, "name"), *file = jstr(o, "file"), *type = jstr(o, "type");
        t->name = strdup(name ? name : "");
        t->path = file ? join(dir, file) : strdup("");
        if (!t->name || !t->path)
                return -ENOMEM;
        t->type = type ? type_from_name(type) : _RT_TYPE_MAX;
        json_object *shape;
        if (json_object_object_get_ex(o, "shape", &shape) && json_object_is_type(shape, json_type_array)) {
                size_t n = json_object_array_length(shape);
                if (n > RT_MAX_RANK)
                        return -EINVAL;
                t->rank = (int32_t) n;
                for (size_t i = 0; i < n; i++)
                        t->shape[i] = json_object_get_int(json_object_array_get_idx(shape, i));
        }
        json_object *tol, *v;
        if (json_object_object_get_ex(o, "tolerance", &tol)) {
                if (json_object_object_get_ex(tol, "reference", &v))
                        tol_parse(v, &t->tol[GOLDEN_TOL_REFERENCE]);
                if (json_object_object_get_ex(tol, "accelerated", &v))
                        tol_parse(v, &t->tol[GOLDEN_TOL_ACCELERATED]);
        }
        json_object *ign = NULL;
        if (!json_object_object_get_ex(o, "ignore_elements", &ign) && tol)
                (void) json_object_object_get_ex(tol, "ignore_elements", &ign);
        if (ign && json_object_is_type(ign, json_type_array)) {
                size_t n = json_object_array_length(ign);
                t->ignore = calloc(n + 1, sizeof(int64_t));
                if (!t->ignore)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        t->ignore[i] = json_object_get_int64(json_object_array_get_idx(ign, i));
                t->n_ignore = n;
        }
        return 0;
}

static int tensors_parse(json_object *arr, const char *dir, golden_tensor_t **ret, size_t *ret_n) {
        if (!arr || !json_object_is_type(arr, json_type_array))
                return 0;
        size_t n = json_object_array_length(arr);
        golden_tensor_t *v = calloc(n + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        *ret = v;
        *ret_n = n;
        for (size_t i = 0; i < n; i++) {
                int r = tensor_parse(json_object_array_get_idx(arr, i), dir, &v[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void tensors_free(golden_tensor_t *v, size_t n) {
        for (size_t i = 0; v && i < n; i++) {
                free(v[i].name);
                free(v[i].path);
                free(v[i].ignore);
        }
        free(v);
}

golden_manifest_t *golden_manifest_free(golden_manifest_t *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_models; i++) {
                golden_model_t *g = &m->models[i];
                free(g->name);
                free(g->path);
                free(g->reason);
                for (size_t k = 0; k < g->n_custom_ops; k++)
                        free(g->custom_ops[k]);
                free(g->custom_ops);
                tensors_free(g->inputs, g->n_inputs);
                tensors_free(g->outputs, g->n_outputs);
        }
        free(m->models);
        free(m->dir);
        free(m);
        return NULL;
}

DEFINE_POINTER_CLEANUP(golden_manifest_t, golden_manifest_free);

static void json_putp(json_object **o) {
        if (*o)
                (void) json_object_put(*o);
}

static int model_parse(json_object *o, const char *dir, golden_model_t *g) {
        const char *name = jstr(o, "name"), *file = jstr(o, "file"), *reason = jstr(o, "reason");
        g->name = strdup(name ? name : "");
        g->path = file ? join(dir, file) : strdup("");
        g->reason = strdup(reason ? reason : "");
        if (!g->name || !g->path || !g->reason)
                return -ENOMEM;
        json_object *v;
        g->runnable = json_object_object_get_ex(o, "runnable", &v) && json_object_get_boolean(v);
        if (json_object_object_get_ex(o, "ops", &v) && json_object_is_type(v, json_type_object)) {
                size_t n = (size_t) json_object_object_length(v);
                g->custom_ops = calloc(n + 1, sizeof(char *));
                if (!g->custom_ops)
                        return -ENOMEM;
                json_object_object_foreach(v, key, val) {
                        (void) val;
                        if (strncmp(key, "CUSTOM:", 7) != 0)
                                continue;
                        g->custom_ops[g->n_custom_ops] = strdup(key + 7);
                        if (!g->custom_ops[g->n_custom_ops])
                                return -ENOMEM;
                        g->n_custom_ops++;
                }
        }
        json_object *arr = NULL;
        (void) json_object_object_get_ex(o, "inputs", &arr);
        int r = tensors_parse(arr, dir, &g->inputs, &g->n_inputs);
        if (r < 0)
                return r;
        arr = NULL;
        (void) json_object_object_get_ex(o, "outputs", &arr);
        return tensors_parse(arr, dir, &g->outputs, &g->n_outputs);
}

int golden_manifest_load(const char *shared_dir, golden_manifest_t **ret, char *err, size_t err_size) {
        if (!shared_dir || !ret)
                return -EINVAL;
        _cleanup_(golden_manifest_freep) golden_manifest_t *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->dir = join(shared_dir, "models");
        _cleanup_free_ char *path = m->dir ? join(m->dir, "manifest.json") : NULL;
        if (!path)
                return -ENOMEM;
        if (access(path, R_OK) < 0) {
                snprintf(err, err_size, "%s: %s", path, strerror(errno));
                return -ENOENT;
        }
        _cleanup_(json_putp) json_object *root = json_object_from_file(path);
        json_object *models;
        if (!root || !json_object_object_get_ex(root, "models", &models) ||
            !json_object_is_type(models, json_type_array)) {
                snprintf(err, err_size, "%s: not a manifest (%s)", path, json_util_get_last_err());
                return -EINVAL;
        }
        size_t n = json_object_array_length(models);
        m->models = calloc(n + 1, sizeof(golden_model_t));
        if (!m->models)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                m->n_models = i + 1;
                int r = model_parse(json_object_array_get_idx(models, i), m->dir, &m->models[i]);
                if (r < 0) {
                        snprintf(err, err_size, "%s: model %zu: %s", path, i, strerror(-r));
                        return r;
                }
        }
        *ret = TAKE_PTR(m);
        return 0;
}

const golden_model_t *golden_manifest_find(const golden_manifest_t *m, const char *name) {
        for (size_t i = 0; m && i < m->n_models; i++)
                if (strcmp(m->models[i].name, name) == 0)
                        return &m->models[i];
        return NULL;
}

/* ---- comparison ---- */

static bool is_float_type(rt_type_t t) {
        return t == RT_TYPE_FLOAT32 || t == RT_TYPE_FLOAT64 || t == RT_TYPE_FLOAT16;
}

static double half_to_double(uint16_t h) {
        int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
        double v;
        if (exp == 0)
                v = ldexp(mant, -24);
        else if (exp == 31)
                v = mant ? NAN : INFINITY;
        else
                v = ldexp(mant + 1024, exp - 25);
        return (h & 0x8000) ? -v : v;
}

static double elem_f(rt_type_t t, const uint8_t *p, size_t i) {
        switch (t) {
        case RT_TYPE_FLOAT32: { float f; memcpy(&f, p + 4 * i, 4); return f; }
        case RT_TYPE_FLOAT64: { double d; memcpy(&d, p + 8 * i, 8); return d; }
        case RT_TYPE_FLOAT16: { uint16_t h; memcpy(&h, p + 2 * i, 2); return half_to_double(h); }
        default: return 0;
        }
}

static bool elem_i(rt_type_t t, const uint8_t *p, size_t i, int64_t *ret) {
        switch (t) {
        case RT_TYPE_INT8: *ret = (int8_t) p[i]; return true;
        case RT_TYPE_UINT8: case RT_TYPE_BOOL: *ret = p[i]; return true;
        case RT_TYPE_INT16: { int16_t v; memcpy(&v, p + 2 * i, 2); *ret = v; return true; }
        case RT_TYPE_UINT16: { uint16_t v; memcpy(&v, p + 2 * i, 2); *ret = v; return true; }
        case RT_TYPE_INT32: { int32_t v; memcpy(&v, p + 4 * i, 4); *ret = v; return true; }
        case RT_TYPE_UINT32: { uint32_t v; memcpy(&v, p + 4 * i, 4); *ret = v; return true; }
        case RT_TYPE_INT64: { int64_t v; memcpy(&v, p + 8 * i, 8); *ret = v; return true; }
        default: return false;
        }
}

static bool ignored(const golden_tensor_t *g, size_t i) {
        for (size_t k = 0; k < g->n_ignore; k++)
                if (g->ignore[k] >= 0 && (size_t) g->ignore[k] == i)
                        return true;
        return false;
}

int golden_compare(const golden_tensor_t *g, golden_tol_kind_t kind, const void *a, size_t a_size,
                   const void *b, size_t b_size, golden_result_t *ret) {
        if (!g || !ret || kind < 0 || kind >= _GOLDEN_TOL_MAX || (!a && a_size) || (!b && b_size))
                return -EINVAL;
        memset(ret, 0, sizeof(*ret));
        const golden_tol_t *tol = &g->tol[kind];
        if (a_size != b_size) {
                snprintf(ret->message, sizeof(ret->message), "size %zu bytes, golden has %zu", a_size,
                         b_size);
                ret->score = INFINITY;
                return 0;
        }
        if (g->type == RT_TYPE_STRING) {
                ret->elements = b_size;
                for (size_t i = 0; i < b_size; i++)
                        if (((const uint8_t *) a)[i] != ((const uint8_t *) b)[i]) {
                                if (ret->mismatches++ == 0)
                                        ret->worst = i;
                        }
                ret->pass = ret->mismatches == 0;
                ret->score = ret->pass ? 0 : INFINITY;
                if (!ret->pass)
                        snprintf(ret->message, sizeof(ret->message),
                                 "%zu bytes differ, first at byte %zu", ret->mismatches, ret->worst);
                return 0;
        }
        if (!tol->present)
                return -EINVAL;
        size_t es = rt_type_size(g->type);
        if (es == 0)
                return -EINVAL;
        if (b_size % es) {
                snprintf(ret->message, sizeof(ret->message), "size %zu is not a multiple of %zu", b_size, es);
                ret->score = INFINITY;
                return 0;
        }
        size_t n = b_size / es;
        ret->elements = n;
        const uint8_t *pa = a, *pb = b;
        bool ok = true;
        if (is_float_type(g->type)) {
                for (size_t i = 0; i < n; i++) {
                        if (ignored(g, i))
                                continue;
                        double x = elem_f(g->type, pa, i), y = elem_f(g->type, pb, i);
                        double s;
                        if (isnan(y))
                                s = isnan(x) ? 0 : INFINITY;
                        else if (isinf(y))
                                s = x == y ? 0 : INFINITY;
                        else if (!isfinite(x))
                                s = INFINITY;
                        else {
                                double d = fabs(x - y), allowed = tol->atol + tol->rtol * fabs(y);
                                if (d > ret->max_err)
                                        ret->max_err = d;
                                s = allowed > 0 ? d / allowed : (d > 0 ? INFINITY : 0);
                        }
                        if (isinf(s) && isfinite(y))
                                ret->max_err = INFINITY;
                        if (s > 1)
                                ret->mismatches++;
                        if (s > ret->score || (i == 0 && s >= ret->score)) {
                                ret->score = s;
                                ret->worst = i;
                        }
                }
                ok = ret->mismatches == 0;
        } else {
                int64_t steps = tol->steps;
                for (size_t i = 0; i < n; i++) {
                        if (ignored(g, i))
                                continue;
                        int64_t x, y;
                        if (!elem_i(g->type, pa, i, &x) || !elem_i(g->type, pb, i, &y))
                                return -EINVAL;
                        double d = fabs((double) x - (double) y);
                        if (x != y)
                                ret->mismatches++;
                        if (d > ret->max_err) {
                                ret->max_err = d;
                                ret->worst = i;
                        }
                        if (d > (double) steps)
                                ok = false;
                }
                ret->score = steps > 0 ? ret->max_err / (double) steps : (ret->max_err > 0 ? INFINITY : 0);
                if (tol->max_mismatch_fraction >= 0 && n > 0 &&
                    (double) ret->mismatches / (double) n > tol->max_mismatch_fraction)
                        ok = false;
        }
        ret->pass = ok;
        if (!ok) {
                if (is_float_type(g->type))
                        snprintf(ret->message, sizeof(ret->message),
                                 "max err %.6g at element %zu (candidate %.9g, golden %.9g, score %.3g), %zu of %zu elements fail",
                                 ret->max_err, ret->worst, elem_f(g->type, pa, ret->worst),
                                 elem_f(g->type, pb, ret->worst), ret->score, ret->mismatches, n);
                else
                        snprintf(ret->message, sizeof(ret->message),
                                 "max err %.0f steps at element %zu (allowed %lld), %zu of %zu elements differ",
                                 ret->max_err, ret->worst, (long long) tol->steps, ret->mismatches, n);
        }
        return 0;
}
