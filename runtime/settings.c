/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cleanup.h"
#include "settings.h"
#include "settings-internal.h"

static const struct {
        const char *name;
        rt_delegate_t value;
} delegates[] = {
        { "NONE", RT_DELEGATE_NONE },       { "NNAPI", RT_DELEGATE_NNAPI },
        { "GPU", RT_DELEGATE_GPU },         { "HEXAGON", RT_DELEGATE_HEXAGON },
        { "XNNPACK", RT_DELEGATE_XNNPACK }, { "EDGETPU", RT_DELEGATE_EDGETPU },
        { "EDGETPU_CORAL", RT_DELEGATE_EDGETPU_CORAL },
};

static const struct {
        const char *name;
        uint32_t bit;
} xnn_flags[] = {
        { "TFLITE_XNNPACK_DELEGATE_FLAG_QS8", RT_XNNPACK_FLAG_QS8 },
        { "TFLITE_XNNPACK_DELEGATE_FLAG_QU8", RT_XNNPACK_FLAG_QU8 },
        { "TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16", RT_XNNPACK_FLAG_FORCE_FP16 },
        { "TFLITE_XNNPACK_DELEGATE_FLAG_SPARSE_INFERENCE", RT_XNNPACK_FLAG_SPARSE },
};

int rt__settings_fail(char *err, size_t size, const char *fmt, ...) {
        if (err && size) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(err, size, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}


void rt_settings_init(rt_settings_t *s) {
        if (!s)
                return;
        *s = (rt_settings_t) {
                .delegate = RT_DELEGATE_NONE,
                .cpu_num_threads = -1,
                .xnnpack_num_threads = -1,
        };
}

void rt_settings_done(rt_settings_t *s) {
        if (!s)
                return;
        free(s->plugin_settings);
        rt_settings_init(s);
}

int rt_settings_copy(rt_settings_t *dst, const rt_settings_t *src) {
        if (!dst || !src)
                return -EINVAL;
        char *p = NULL;
        if (src->plugin_settings) {
                p = strdup(src->plugin_settings);
                if (!p)
                        return -ENOMEM;
        }
        *dst = *src;
        dst->plugin_settings = p;
        return 0;
}

int32_t rt_settings_num_threads(const rt_settings_t *s, int32_t def) {
        int32_t n = -1;
        if (s && s->delegate == RT_DELEGATE_XNNPACK && s->xnnpack_num_threads > 0)
                n = s->xnnpack_num_threads;
        else if (s && s->cpu_num_threads > 0)
                n = s->cpu_num_threads;
        if (n < 1)
                n = def;
        return n < 1 ? 1 : n;
}

const char *rt_settings_delegate_name(const rt_settings_t *s) {
        if (!s)
                return "NONE";
        if (s->delegate == RT_DELEGATE_PLUGIN)
                return s->delegate_name;
        for (size_t i = 0; i < ELEMENTSOF(delegates); i++)
                if (delegates[i].value == s->delegate)
                        return delegates[i].name;
        return "NONE";
}

size_t rt_settings_name_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        if (la > 63 || lb > 63)
                return la > lb ? la : lb;
        size_t row[64];
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j];
                        int ca = a[i - 1], cb = b[j - 1];
                        if (ca >= 'a' && ca <= 'z')
                                ca -= 'a' - 'A';
                        if (cb >= 'a' && cb <= 'z')
                                cb -= 'a' - 'A';
                        size_t best = diag + (ca != cb);
                        if (up + 1 < best)
                                best = up + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        return row[lb];
}

bool rt_settings_name_close(const char *typed, const char *known) {
        size_t d = rt_settings_name_distance(typed, known);
        size_t lk = strlen(known);
        return d > 0 && d <= 2 && d * 3 <= lk;
}

const char *rt_settings_delegate_suggest(const char *name) {
        const char *best = NULL;
        size_t best_d = 0;
        for (size_t i = 0; name && i < ELEMENTSOF(delegates); i++) {
                size_t d = rt_settings_name_distance(name, delegates[i].name);
                if (rt_settings_name_close(name, delegates[i].name) && (!best || d < best_d)) {
                        best = delegates[i].name;
                        best_d = d;
                }
        }
        return best;
}

/* An optional int32 field of `o`; -EINVAL when present with another type. */
static int get_int(json_object *o, const char *key, const char *where, int32_t min, int32_t *ret, char *err,
                   size_t err_size) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_int))
                return rt__settings_fail(err, err_size, "%s%s: expected an integer", where, key);
        int64_t x = json_object_get_int64(v);
        if (x < min || x > INT32_MAX)
                return rt__settings_fail(err, err_size, "%s%s: %lld is out of range", where, key, (long long) x);
        *ret = (int32_t) x;
        return 0;
}

static int get_bool(json_object *o, const char *key, const char *where, bool *ret, char *err, size_t err_size) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_boolean))
                return rt__settings_fail(err, err_size, "%s%s: expected true or false", where, key);
        *ret = json_object_get_boolean(v);
        return 0;
}

static int get_object(json_object *o, const char *key, json_object **ret, char *err, size_t err_size) {
        json_object *v;
        *ret = NULL;
        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
                return 0;
        if (!json_object_is_type(v, json_type_object))
                return rt__settings_fail(err, err_size, "%s: expected an object", key);
        *ret = v;
        return 0;
}

static int flag_parse(json_object *v, uint32_t *flags, char *err, size_t err_size) {
        if (json_object_is_type(v, json_type_int)) {
                int64_t x = json_object_get_int64(v);
                if (x < 0 || x > UINT32_MAX)
                        return rt__settings_fail(err, err_size, "xnnpack_settings.flags: %lld is out of range",
                                                 (long long) x);
                *flags |= (uint32_t) x;
                return 0;
        }
        if (!json_object_is_type(v, json_type_string))
                return rt__settings_fail(err, err_size,
                                         "xnnpack_settings.flags: expected a flag name, a list or an integer");
        const char *s = json_object_get_string(v);
        for (size_t i = 0; i < ELEMENTSOF(xnn_flags); i++)
                if (strcmp(s, xnn_flags[i].name) == 0) {
                        *flags |= xnn_flags[i].bit;
                        return 0;
                }
        return rt__settings_fail(err, err_size, "xnnpack_settings.flags: unknown flag '%s'", s);
}

static int parse_object(json_object *root, rt_settings_t *s, char *err, size_t err_size) {
        json_object *v;
        int r;
        if (!json_object_is_type(root, json_type_object))
                return rt__settings_fail(err, err_size, "settings: expected a JSON object");
        if (json_object_object_get_ex(root, "delegate", &v) && !json_object_is_type(v, json_type_null)) {
                if (json_object_is_type(v, json_type_int)) {
                        int64_t x = json_object_get_int64(v);
                        if (x < RT_DELEGATE_NONE || x > RT_DELEGATE_EDGETPU_CORAL)
                                return rt__settings_fail(err, err_size, "delegate: unknown value %lld", (long long) x);
                        s->delegate = (rt_delegate_t) x;
                } else if (json_object_is_type(v, json_type_string)) {
                        const char *name = json_object_get_string(v);
                        size_t len = strlen(name);
                        if (len == 0 || len >= sizeof(s->delegate_name))
                                return rt__settings_fail(err, err_size, "delegate: invalid name '%s'", name);
                        s->delegate = RT_DELEGATE_PLUGIN;
                        for (size_t i = 0; i < ELEMENTSOF(delegates); i++)
                                if (strcmp(name, delegates[i].name) == 0)
                                        s->delegate = delegates[i].value;
                } else
                        return rt__settings_fail(err, err_size, "delegate: expected a name");
                snprintf(s->delegate_name, sizeof(s->delegate_name), "%s",
                         s->delegate == RT_DELEGATE_PLUGIN ? json_object_get_string(v) : "");
                if (s->delegate != RT_DELEGATE_PLUGIN && s->delegate != RT_DELEGATE_NONE)
                        snprintf(s->delegate_name, sizeof(s->delegate_name), "%s", rt_settings_delegate_name(s));
        }
        json_object *o;
        r = get_object(root, "cpu_settings", &o, err, err_size);
        if (r < 0)
                return r;
        if (o && (r = get_int(o, "num_threads", "cpu_settings.", -1, &s->cpu_num_threads, err, err_size)) < 0)
                return r;
        r = get_object(root, "xnnpack_settings", &o, err, err_size);
        if (r < 0)
                return r;
        if (o) {
                r = get_int(o, "num_threads", "xnnpack_settings.", -1, &s->xnnpack_num_threads, err, err_size);
                if (r < 0)
                        return r;
                if (json_object_object_get_ex(o, "flags", &v)) {
                        if (json_object_is_type(v, json_type_array)) {
                                for (size_t i = 0; i < json_object_array_length(v); i++)
                                        if ((r = flag_parse(json_object_array_get_idx(v, i), &s->xnnpack_flags, err,
                                                            err_size)) < 0)
                                                return r;
                        } else if ((r = flag_parse(v, &s->xnnpack_flags, err, err_size)) < 0)
                                return r;
                }
                bool b = false;
                if ((r = get_bool(o, "force_fp16", "xnnpack_settings.", &b, err, err_size)) < 0)
                        return r;
                if (b)
                        s->xnnpack_flags |= RT_XNNPACK_FLAG_FORCE_FP16;
                b = false;
                if ((r = get_bool(o, "sparse_inference", "xnnpack_settings.", &b, err, err_size)) < 0)
                        return r;
                if (b)
                        s->xnnpack_flags |= RT_XNNPACK_FLAG_SPARSE;
        }
        r = get_int(root, "max_delegated_partitions", "", INT32_MIN, &s->max_delegated_partitions, err, err_size);
        if (r < 0)
                return r;
        r = get_int(root, "min_nodes_per_partition", "", 0, &s->min_nodes_per_partition, err, err_size);
        if (r < 0)
                return r;
        r = get_object(root, "fallback_settings", &o, err, err_size);
        if (r < 0)
                return r;
        if (o) {
                r = get_bool(o, "allow_automatic_fallback_on_compilation_error", "fallback_settings.",
                             &s->fallback_on_compilation_error, err, err_size);
                if (r < 0)
                        return r;
                r = get_bool(o, "allow_automatic_fallback_on_execution_error", "fallback_settings.",
                             &s->fallback_on_execution_error, err, err_size);
                if (r < 0)
                        return r;
        }
        if (json_object_object_get_ex(root, "plugin_settings", &v) && !json_object_is_type(v, json_type_null)) {
                s->plugin_settings = strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
                if (!s->plugin_settings)
                        return -ENOMEM;
        }
        return 0;
}

int rt_settings_parse_json(const char *json, rt_settings_t *ret, char *err, size_t err_size) {
        if (!json || !ret)
                return -EINVAL;
        json_tokener *tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        json_object *root = json_tokener_parse_ex(tok, json, (int) strlen(json));
        enum json_tokener_error jerr = json_tokener_get_error(tok);
        json_tokener_free(tok);
        if (!root || jerr != json_tokener_success) {
                json_object_put(root);
                return rt__settings_fail(err, err_size, "settings: malformed JSON: %s",
                                         jerr != json_tokener_success ? json_tokener_error_desc(jerr) : "empty");
        }
        rt_settings_t s;
        rt_settings_init(&s);
        int r = parse_object(root, &s, err, err_size);
        json_object_put(root);
        if (r < 0) {
                rt_settings_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

int rt_settings_load_file(const char *path, rt_settings_t *ret, char *err, size_t err_size) {
        if (!path || !ret)
                return -EINVAL;
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f) {
                int r = -errno;
                if (err && err_size)
                        snprintf(err, err_size, "%s: %s", path, strerror(-r));
                return r;
        }
        size_t cap = 4096, n = 0;
        _cleanup_free_ char *buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                size_t k = fread(buf + n, 1, cap - n - 1, f);
                n += k;
                if (n < cap - 1)
                        break;
                if (cap > (1u << 20))
                        return rt__settings_fail(err, err_size, "%s: settings file too large", path);
                char *p = realloc(buf, cap * 2);
                if (!p)
                        return -ENOMEM;
                buf = p;
                cap *= 2;
        }
        buf[n] = 0;
        return rt_settings_parse_json(buf, ret, err, err_size);
}
