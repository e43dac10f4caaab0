/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Canonical settings keys. The key is built by walking the protobuf-c
 * descriptors rather than naming fields by hand, so fields added to
 * acceleration.proto later take part without touching this file, and the
 * order (field number) never depends on how the message was built or
 * serialized.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "storage-internal.h"

typedef struct key_writer {
        FILE *f;
        size_t entries;
} key_writer_t;

static void put_sep(key_writer_t *w) {
        if (w->entries++ > 0)
                fputc(';', w->f);
}

static void put_escaped(FILE *f, const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                    *p == '.' || *p == '_' || *p == '-')
                        fputc(*p, f);
                else
                        fprintf(f, "%%%02X", *p);
        }
}

static void put_hex(FILE *f, const uint8_t *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%02x", p[i]);
}

static size_t element_size(ProtobufCType t) {
        switch (t) {
        case PROTOBUF_C_TYPE_INT32:
        case PROTOBUF_C_TYPE_SINT32:
        case PROTOBUF_C_TYPE_SFIXED32:
        case PROTOBUF_C_TYPE_UINT32:
        case PROTOBUF_C_TYPE_FIXED32:
                return 4;
        case PROTOBUF_C_TYPE_FLOAT:
                return sizeof(float);
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_SFIXED64:
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_FIXED64:
                return 8;
        case PROTOBUF_C_TYPE_DOUBLE:
                return sizeof(double);
        case PROTOBUF_C_TYPE_BOOL:
                return sizeof(protobuf_c_boolean);
        case PROTOBUF_C_TYPE_ENUM:
                return sizeof(int);
        case PROTOBUF_C_TYPE_STRING:
                return sizeof(char *);
        case PROTOBUF_C_TYPE_BYTES:
                return sizeof(ProtobufCBinaryData);
        case PROTOBUF_C_TYPE_MESSAGE:
                return sizeof(ProtobufCMessage *);
        }
        return 0;
}

static void emit_message(key_writer_t *w, const ProtobufCMessage *m, const char *prefix);

/* One value at p of field fd, under path. */
static void emit_value(key_writer_t *w, const ProtobufCFieldDescriptor *fd, const void *p, const char *path) {
        if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
                const ProtobufCMessage *sub = *(ProtobufCMessage *const *) p;
                size_t before = w->entries;
                if (sub)
                        emit_message(w, sub, path);
                if (w->entries == before) {
                        /* Present but empty is still a setting someone made. */
                        put_sep(w);
                        fprintf(w->f, "%s={}", path);
                }
                return;
        }

        put_sep(w);
        fprintf(w->f, "%s=", path);
        switch (fd->type) {
        case PROTOBUF_C_TYPE_INT32:
        case PROTOBUF_C_TYPE_SINT32:
        case PROTOBUF_C_TYPE_SFIXED32:
                fprintf(w->f, "%" PRId32, *(const int32_t *) p);
                break;
        case PROTOBUF_C_TYPE_UINT32:
        case PROTOBUF_C_TYPE_FIXED32:
                fprintf(w->f, "%" PRIu32, *(const uint32_t *) p);
                break;
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_SFIXED64:
                fprintf(w->f, "%" PRId64, *(const int64_t *) p);
                break;
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_FIXED64:
                fprintf(w->f, "%" PRIu64, *(const uint64_t *) p);
                break;
        case PROTOBUF_C_TYPE_FLOAT:
                fprintf(w->f, "%.9g", (double) *(const float *) p);
                break;
        case PROTOBUF_C_TYPE_DOUBLE:
                fprintf(w->f, "%.17g", *(const double *) p);
                break;
        case PROTOBUF_C_TYPE_BOOL:
                fputs(*(const protobuf_c_boolean *) p ? "true" : "false", w->f);
                break;
        case PROTOBUF_C_TYPE_ENUM: {
                int v = *(const int *) p;
                const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(fd->descriptor, v);
                if (ev)
                        fputs(ev->name, w->f);
                else
                        fprintf(w->f, "%d", v);
                break;
        }
        case PROTOBUF_C_TYPE_STRING:
                put_escaped(w->f, *(const char *const *) p);
                break;
        case PROTOBUF_C_TYPE_BYTES: {
                const ProtobufCBinaryData *b = p;
                put_hex(w->f, b->data, b->len);
                break;
        }
        case PROTOBUF_C_TYPE_MESSAGE:
                break;
        }
}

/* Whether a singular field is set, after protobuf-c's own packing rules. */
static bool field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd) {
        const uint8_t *base = (const uint8_t *) m;
        const void *p = base + fd->offset;

        if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
                return *(const uint32_t *) (base + fd->quantifier_offset) == fd->id;
        if (fd->label == PROTOBUF_C_LABEL_REQUIRED)
                return true;
        if (fd->type == PROTOBUF_C_TYPE_MESSAGE)
                return *(ProtobufCMessage *const *) p != NULL;
        if (fd->type == PROTOBUF_C_TYPE_STRING) {
                const char *s = *(const char *const *) p;
                if (fd->label == PROTOBUF_C_LABEL_NONE)
                        return s && *s;
                /* An unset proto2 string points at its default (or is NULL). */
                return s && s != (const char *) fd->default_value;
        }
        if (fd->label == PROTOBUF_C_LABEL_OPTIONAL)
                return *(const protobuf_c_boolean *) (base + fd->quantifier_offset);

        /* proto3 implicit presence: set when not zero. */
        size_t n = element_size(fd->type);
        if (fd->type == PROTOBUF_C_TYPE_BYTES)
                return ((const ProtobufCBinaryData *) p)->len > 0;
        for (size_t i = 0; i < n; i++)
                if (((const uint8_t *) p)[i])
                        return true;
        return false;
}

static int cmp_field_id(const void *a, const void *b) {
        const ProtobufCFieldDescriptor *x = *(const ProtobufCFieldDescriptor *const *) a;
        const ProtobufCFieldDescriptor *y = *(const ProtobufCFieldDescriptor *const *) b;
        return (x->id > y->id) - (x->id < y->id);
}

static int cmp_unknown(const void *a, const void *b) {
        const ProtobufCMessageUnknownField *x = *(const ProtobufCMessageUnknownField *const *) a;
        const ProtobufCMessageUnknownField *y = *(const ProtobufCMessageUnknownField *const *) b;
        if (x->tag != y->tag)
                return (x->tag > y->tag) - (x->tag < y->tag);
        /* Same tag: keep wire order (pointers into one array). */
        return (x > y) - (x < y);
}

static char *join(const char *prefix, const char *name) {
        char *p = NULL;
        if (asprintf(&p, "%s%s%s", prefix, *prefix ? "." : "", name) < 0)
                return NULL;
        return p;
}

static void emit_message(key_writer_t *w, const ProtobufCMessage *m, const char *prefix) {
        const ProtobufCMessageDescriptor *d = m->descriptor;
        _cleanup_free_ const ProtobufCFieldDescriptor **order = calloc(d->n_fields + 1, sizeof(*order));
        if (!order) {
                w->f = NULL; /* poisons the writer: reported as -ENOMEM */
                return;
        }
        for (unsigned i = 0; i < d->n_fields; i++)
                order[i] = &d->fields[i];
        qsort(order, d->n_fields, sizeof(order[0]), cmp_field_id);

        for (unsigned i = 0; i < d->n_fields; i++) {
                const ProtobufCFieldDescriptor *fd = order[i];
                const uint8_t *base = (const uint8_t *) m;
                _cleanup_free_ char *path = join(prefix, fd->name);
                if (!path) {
                        w->f = NULL;
                        return;
                }
                if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
                        size_t n = *(const size_t *) (base + fd->quantifier_offset);
                        const uint8_t *arr = *(const uint8_t *const *) (base + fd->offset);
                        size_t es = element_size(fd->type);
                        for (size_t k = 0; k < n; k++) {
                                _cleanup_free_ char *ipath = NULL;
                                if (asprintf(&ipath, "%s[%zu]", path, k) < 0) {
                                        w->f = NULL;
                                        return;
                                }
                                emit_value(w, fd, arr + k * es, ipath);
                                if (!w->f)
                                        return;
                        }
                } else if (field_present(m, fd)) {
                        emit_value(w, fd, base + fd->offset, path);
                }
                if (!w->f)
                        return;
        }

        if (m->n_unknown_fields > 0) {
                _cleanup_free_ const ProtobufCMessageUnknownField **u = calloc(m->n_unknown_fields, sizeof(*u));
                if (!u) {
                        w->f = NULL;
                        return;
                }
                for (unsigned i = 0; i < m->n_unknown_fields; i++)
                        u[i] = &m->unknown_fields[i];
                qsort(u, m->n_unknown_fields, sizeof(u[0]), cmp_unknown);
                for (unsigned i = 0; i < m->n_unknown_fields; i++) {
                        put_sep(w);
                        fprintf(w->f, "%s%s#%" PRIu32 "=", prefix, *prefix ? "." : "", u[i]->tag);
                        put_hex(w->f, u[i]->data, u[i]->len);
                }
        }
}

int store_settings_key(const Tflite__Proto__TFLiteSettings *settings, char **ret) {
        if (!ret)
                return -EINVAL;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        key_writer_t w = { .f = f };
        if (settings)
                emit_message(&w, &settings->base, "");
        bool failed = !w.f || ferror(f);
        if (fclose(f) != 0 || failed) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

int store_settings_key_from_bytes(const void *data, size_t size, char **ret) {
        if (!ret || (!data && size > 0))
                return -EINVAL;
        Tflite__Proto__TFLiteSettings *s = tflite__proto__tflite_settings__unpack(NULL, size, data);
        if (!s)
                return -EBADMSG;
        int r = store_settings_key(s, ret);
        tflite__proto__tflite_settings__free_unpacked(s, NULL);
        return r;
}
