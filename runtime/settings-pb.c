/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rt_settings_t <-> the seed's TFLiteSettings protobuf (with our extension
 * fields, settings.h), the JSON form back, the canonical key, the driver
 * and the table label: the one place that says what a setting means.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "acceleration.pb-c.h"
#include "cleanup.h"
#include "settings.h"
#include "settings-internal.h"


static size_t varint_put(uint8_t *out, uint64_t v) {
        size_t n = 0;

        do {
                out[n] = (uint8_t) (v & 0x7f);
                v >>= 7;
                if (v)
                        out[n] |= 0x80;
                n++;
        } while (v);
        return n;
}

/* 0 and the value, or -EBADMSG. */
static int varint_get(const uint8_t *p, size_t size, uint64_t *ret, size_t *ret_used) {
        uint64_t v = 0;

        for (size_t i = 0; i < size && i < 10; i++) {
                v |= (uint64_t) (p[i] & 0x7f) << (7 * i);
                if (!(p[i] & 0x80)) {
                        *ret = v;
                        *ret_used = i + 1;
                        return 0;
                }
        }
        return -EBADMSG;
}

/* A length-delimited unknown field holding `s`; data is malloc'ed. */
static int unknown_string(ProtobufCMessageUnknownField *f, uint32_t tag, const char *s) {
        size_t n = strlen(s);
        uint8_t *d = malloc(n + 10);

        if (!d)
                return -ENOMEM;
        size_t k = varint_put(d, n);
        memcpy(d + k, s, n);
        *f = (ProtobufCMessageUnknownField) {
                .tag = tag, .wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, .len = k + n, .data = d
        };
        return 0;
}

int rt_settings_pack(const rt_settings_t *s, uint8_t **ret, size_t *ret_size) {
        Tflite__Proto__TFLiteSettings t = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__XNNPackSettings x = TFLITE__PROTO__XNNPACK_SETTINGS__INIT;
        Tflite__Proto__CPUSettings c = TFLITE__PROTO__CPUSETTINGS__INIT;
        Tflite__Proto__FallbackSettings fb = TFLITE__PROTO__FALLBACK_SETTINGS__INIT;
        ProtobufCMessageUnknownField tu[3] = {}, xu[1] = {};
        uint8_t flagbuf[10], minbuf[10];
        uint8_t *out;
        size_t n;
        int r = 0;

        if (!s || !ret || !ret_size)
                return -EINVAL;
        switch (s->delegate) {
        case RT_DELEGATE_NONE:
                break;
        case RT_DELEGATE_PLUGIN:
                r = unknown_string(&tu[t.base.n_unknown_fields], RT_SETTINGS_FIELD_PLUGIN_NAME, s->delegate_name);
                if (r < 0)
                        goto out;
                t.base.n_unknown_fields++;
                break;
        default:
                t.has_delegate = 1;
                t.delegate = (Tflite__Proto__Delegate) s->delegate;
                break;
        }
        if (s->delegate == RT_DELEGATE_PLUGIN && s->plugin_settings) {
                r = unknown_string(&tu[t.base.n_unknown_fields], RT_SETTINGS_FIELD_PLUGIN_SETTINGS, s->plugin_settings);
                if (r < 0)
                        goto out;
                t.base.n_unknown_fields++;
        }
        if (s->min_nodes_per_partition > 1) {
                tu[t.base.n_unknown_fields++] = (ProtobufCMessageUnknownField) {
                        .tag = RT_SETTINGS_FIELD_MIN_NODES_PER_PARTITION,
                        .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT,
                        .len = varint_put(minbuf, (uint64_t) s->min_nodes_per_partition),
                        .data = minbuf,
                };
        }
        if (t.base.n_unknown_fields > 0)
                t.base.unknown_fields = tu;
        if (s->xnnpack_num_threads != -1 || s->xnnpack_flags) {
                if (s->xnnpack_num_threads != -1) {
                        x.has_num_threads = 1;
                        x.num_threads = s->xnnpack_num_threads;
                }
                if (s->xnnpack_flags) {
                        xu[0] = (ProtobufCMessageUnknownField) {
                                .tag = RT_SETTINGS_FIELD_XNNPACK_FLAGS,
                                .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT,
                                .len = varint_put(flagbuf, s->xnnpack_flags),
                                .data = flagbuf,
                        };
                        x.base.n_unknown_fields = 1;
                        x.base.unknown_fields = xu;
                }
                t.xnnpack_settings = &x;
        }
        if (s->cpu_num_threads != -1) {
                c.has_num_threads = 1;
                c.num_threads = s->cpu_num_threads;
                t.cpu_settings = &c;
        }
        if (s->max_delegated_partitions > 0) {
                t.has_max_delegated_partitions = 1;
                t.max_delegated_partitions = s->max_delegated_partitions;
        }
        if (s->fallback_on_compilation_error || s->fallback_on_execution_error) {
                if (s->fallback_on_compilation_error) {
                        fb.has_allow_automatic_fallback_on_compilation_error = 1;
                        fb.allow_automatic_fallback_on_compilation_error = 1;
                }
                if (s->fallback_on_execution_error) {
                        fb.has_allow_automatic_fallback_on_execution_error = 1;
                        fb.allow_automatic_fallback_on_execution_error = 1;
                }
                t.fallback_settings = &fb;
        }
        n = tflite__proto__tflite_settings__get_packed_size(&t);
        out = malloc(n ? n : 1);
        if (!out) {
                r = -ENOMEM;
                goto out;
        }
        (void) tflite__proto__tflite_settings__pack(&t, out);
        *ret = out;
        *ret_size = n;
out:
        for (size_t i = 0; i < ELEMENTSOF(tu); i++)
                if (tu[i].data != minbuf)
                        free(tu[i].data);
        return r;
}

int rt_settings_to_proto(const rt_settings_t *s, Tflite__Proto__TFLiteSettings **ret) {
        _cleanup_free_ uint8_t *b = NULL;
        size_t n = 0;
        int r;

        if (!ret)
                return -EINVAL;
        r = rt_settings_pack(s, &b, &n);
        if (r < 0)
                return r;
        *ret = tflite__proto__tflite_settings__unpack(NULL, n, b);
        return *ret ? 0 : -ENOMEM;
}

/* The string of a length-delimited unknown field `tag`, or NULL. */
static int unknown_get_string(const ProtobufCMessage *m, uint32_t tag, char **ret) {
        for (size_t i = 0; i < m->n_unknown_fields; i++) {
                const ProtobufCMessageUnknownField *f = &m->unknown_fields[i];
                uint64_t len;
                size_t used;

                if (f->tag != tag || f->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
                        continue;
                if (varint_get(f->data, f->len, &len, &used) < 0 || len != f->len - used)
                        return -EBADMSG;
                *ret = strndup((const char *) f->data + used, len);
                return *ret ? 1 : -ENOMEM;
        }
        *ret = NULL;
        return 0;
}

int rt_settings_from_proto(const Tflite__Proto__TFLiteSettings *t, rt_settings_t *ret, char *err, size_t err_size) {
        rt_settings_t s;
        _cleanup_free_ char *plugin = NULL, *plugin_settings = NULL;
        int r;

        if (!t || !ret)
                return rt__settings_fail(err, err_size, "TFLiteSettings: missing");
        rt_settings_init(&s);
        r = unknown_get_string(&t->base, RT_SETTINGS_FIELD_PLUGIN_NAME, &plugin);
        if (r >= 0)
                r = unknown_get_string(&t->base, RT_SETTINGS_FIELD_PLUGIN_SETTINGS, &plugin_settings);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return rt__settings_fail(err, err_size, "TFLiteSettings: malformed plugin field");
        if (plugin && plugin[0]) {
                if (strlen(plugin) >= sizeof(s.delegate_name))
                        return rt__settings_fail(err, err_size, "delegate: invalid name '%s'", plugin);
                s.delegate = RT_DELEGATE_PLUGIN;
                (void) snprintf(s.delegate_name, sizeof(s.delegate_name), "%s", plugin);
                s.plugin_settings = TAKE_PTR(plugin_settings);
        } else if (t->has_delegate && t->delegate != TFLITE__PROTO__DELEGATE__NONE) {
                if ((int) t->delegate < RT_DELEGATE_NONE || (int) t->delegate > RT_DELEGATE_EDGETPU_CORAL)
                        return rt__settings_fail(err, err_size, "delegate: unknown value %d", (int) t->delegate);
                s.delegate = (rt_delegate_t) t->delegate;
                (void) snprintf(s.delegate_name, sizeof(s.delegate_name), "%s", rt_settings_delegate_name(&s));
        }
        if (t->xnnpack_settings) {
                const Tflite__Proto__XNNPackSettings *x = t->xnnpack_settings;

                if (x->has_num_threads)
                        s.xnnpack_num_threads = x->num_threads;
                for (size_t i = 0; i < x->base.n_unknown_fields; i++) {
                        const ProtobufCMessageUnknownField *f = &x->base.unknown_fields[i];
                        uint64_t v;
                        size_t used;

                        if (f->tag == RT_SETTINGS_FIELD_XNNPACK_FLAGS && f->wire_type == PROTOBUF_C_WIRE_TYPE_VARINT &&
                            varint_get(f->data, f->len, &v, &used) == 0)
                                s.xnnpack_flags = (uint32_t) v;
                }
        }
        if (t->cpu_settings && t->cpu_settings->has_num_threads)
                s.cpu_num_threads = t->cpu_settings->num_threads;
        if (s.cpu_num_threads < -1 || s.xnnpack_num_threads < -1) {
                rt_settings_done(&s);
                return rt__settings_fail(err, err_size, "num_threads: negative thread count");
        }
        if (t->has_max_delegated_partitions)
                s.max_delegated_partitions = t->max_delegated_partitions;
        for (size_t i = 0; i < t->base.n_unknown_fields; i++) {
                const ProtobufCMessageUnknownField *f = &t->base.unknown_fields[i];
                uint64_t v;
                size_t used;

                if (f->tag != RT_SETTINGS_FIELD_MIN_NODES_PER_PARTITION)
                        continue;
                if (f->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT || varint_get(f->data, f->len, &v, &used) < 0 ||
                    v > INT32_MAX) {
                        rt_settings_done(&s);
                        return rt__settings_fail(err, err_size, "TFLiteSettings: malformed min_nodes_per_partition field");
                }
                s.min_nodes_per_partition = (int32_t) v;
        }
        if (t->fallback_settings) {
                s.fallback_on_compilation_error = t->fallback_settings->allow_automatic_fallback_on_compilation_error;
                s.fallback_on_execution_error = t->fallback_settings->allow_automatic_fallback_on_execution_error;
        }
        *ret = s;
        return 0;
}

int rt_settings_parse_proto(const void *data, size_t size, rt_settings_t *ret, char *err, size_t err_size) {
        Tflite__Proto__TFLiteSettings *t;
        int r;

        if (!ret || (!data && size))
                return -EINVAL;
        t = tflite__proto__tflite_settings__unpack(NULL, size, data ? data : (const void *) "");
        if (!t)
                return rt__settings_fail(err, err_size, "TFLiteSettings: malformed protobuf");
        r = rt_settings_from_proto(t, ret, err, err_size);
        tflite__proto__tflite_settings__free_unpacked(t, NULL);
        return r;
}

int rt_settings_to_json(const rt_settings_t *s, char **ret) {
        json_object *root, *o;
        char *text;

        if (!s || !ret)
                return -EINVAL;
        root = json_object_new_object();
        if (!root)
                return -ENOMEM;
        if (s->delegate == RT_DELEGATE_PLUGIN)
                json_object_object_add(root, "delegate", json_object_new_string(s->delegate_name));
        else if (s->delegate != RT_DELEGATE_NONE)
                json_object_object_add(root, "delegate", json_object_new_string(rt_settings_delegate_name(s)));
        if (s->cpu_num_threads != -1) {
                o = json_object_new_object();
                json_object_object_add(o, "num_threads", json_object_new_int(s->cpu_num_threads));
                json_object_object_add(root, "cpu_settings", o);
        }
        if (s->xnnpack_num_threads != -1 || s->xnnpack_flags) {
                o = json_object_new_object();
                if (s->xnnpack_num_threads != -1)
                        json_object_object_add(o, "num_threads", json_object_new_int(s->xnnpack_num_threads));
                if (s->xnnpack_flags)
                        json_object_object_add(o, "flags", json_object_new_int64(s->xnnpack_flags));
                json_object_object_add(root, "xnnpack_settings", o);
        }
        if (s->max_delegated_partitions > 0)
                json_object_object_add(root, "max_delegated_partitions",
                                       json_object_new_int(s->max_delegated_partitions));
        if (s->min_nodes_per_partition > 1)
                json_object_object_add(root, "min_nodes_per_partition",
                                       json_object_new_int(s->min_nodes_per_partition));
        if (s->fallback_on_compilation_error || s->fallback_on_execution_error) {
                o = json_object_new_object();
                json_object_object_add(o, "allow_automatic_fallback_on_compilation_error",
                                       json_object_new_boolean(s->fallback_on_compilation_error));
                json_object_object_add(o, "allow_automatic_fallback_on_execution_error",
                                       json_object_new_boolean(s->fallback_on_execution_error));
                json_object_object_add(root, "fallback_settings", o);
        }
        if (s->plugin_settings) {
                o = json_tokener_parse(s->plugin_settings);
                if (o)
                        json_object_object_add(root, "plugin_settings", o);
        }
        text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
        json_object_put(root);
        if (!text)
                return -ENOMEM;
        *ret = text;
        return 0;
}

void rt_settings_key(const rt_settings_t *s, char *buf, size_t size) {
        bool xnn = s->delegate == RT_DELEGATE_XNNPACK;
        int n;

        /* Only what changes the compiled result: the reference kernels run on
         * the calling thread (no thread count) and XNNPACK flags mean
         * nothing to other delegates. */
        n = snprintf(buf, size, "delegate=%s;threads=%d;xnnpack_flags=%u;max_partitions=%d;fallback=%d%d;plugin=%s",
                        rt_settings_delegate_name(s),
                        s->delegate == RT_DELEGATE_NONE ? 1 : (int) rt_settings_num_threads(s, -1),
                        xnn ? (unsigned) s->xnnpack_flags : 0u,
                        (int) (s->max_delegated_partitions > 0 ? s->max_delegated_partitions : 0),
                        s->fallback_on_compilation_error, s->fallback_on_execution_error,
                        s->plugin_settings ? s->plugin_settings : "");
        /* Added later: only when set, so every older key stays as it was. */
        if (s->min_nodes_per_partition > 1 && n >= 0 && (size_t) n < size)
                (void) snprintf(buf + n, size - (size_t) n, ";min_nodes=%d", (int) s->min_nodes_per_partition);
}

const char *rt_settings_driver_name(const rt_settings_t *s) {
        switch (s->delegate) {
        case RT_DELEGATE_NONE:
                return "reference";
        case RT_DELEGATE_XNNPACK:
                return "xnnpack";
        default:
                return rt_settings_delegate_name(s);
        }
}

void rt_settings_label(const rt_settings_t *s, char *buf, size_t size) {
        int32_t th = rt_settings_num_threads(s, 1);
        int n;

        if (size == 0)
                return;
        switch (s->delegate) {
        case RT_DELEGATE_NONE:
                n = th > 1 ? snprintf(buf, size, "reference/%dt", (int) th) : snprintf(buf, size, "reference");
                break;
        case RT_DELEGATE_XNNPACK: {
                uint32_t q = s->xnnpack_flags & (RT_XNNPACK_FLAG_QS8 | RT_XNNPACK_FLAG_QU8);

                /* Quantized paths are named only when one is left out
                 * (neither bit: both, acceld's default). */
                n = snprintf(buf, size, "xnnpack/%dt%s%s%s", (int) th,
                             (s->xnnpack_flags & RT_XNNPACK_FLAG_FORCE_FP16) ? "/fp16" : "",
                             q == RT_XNNPACK_FLAG_QS8 ? "/qs8" : q == RT_XNNPACK_FLAG_QU8 ? "/qu8" : "",
                             (s->xnnpack_flags & RT_XNNPACK_FLAG_SPARSE) ? "/sparse" : "");
                break;
        }
        default:
                n = snprintf(buf, size, "%s%s", rt_settings_driver_name(s),
                             s->plugin_settings ? s->plugin_settings : "");
                break;
        }
        /* The partitioning choices, for delegates (they mean nothing to
         * the reference kernels). */
        if (s->delegate != RT_DELEGATE_NONE && n >= 0 && (size_t) n < size && s->max_delegated_partitions > 0)
                n += snprintf(buf + n, size - (size_t) n, "/maxp%d", (int) s->max_delegated_partitions);
        if (s->delegate != RT_DELEGATE_NONE && n >= 0 && (size_t) n < size && s->min_nodes_per_partition > 1)
                n += snprintf(buf + n, size - (size_t) n, "/min%d", (int) s->min_nodes_per_partition);
        (void) n;
}
