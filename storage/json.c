/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Any protobuf-c message as JSON, by walking its descriptors (as
 * settings-key.c does for keys): proto field names, enums by value name,
 * bytes as hex, fields that are not set left out. Used to give operators
 * readable columns next to the blobs (storage.md, "Views").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage-internal.h"

static void json_string(FILE *f, const char *s) {
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; p && *p; p++) {
                if (*p == '"' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else if (*p < 0x20)
                        fprintf(f, "\\u%04x", *p);
                else
                        fputc(*p, f);
        }
        fputc('"', f);
}

static void message_write(FILE *f, const ProtobufCMessage *m);

/* One value of field d at p. */
static void value_write(FILE *f, const ProtobufCFieldDescriptor *d, const void *p) {
        switch (d->type) {
        case PROTOBUF_C_TYPE_INT32:
        case PROTOBUF_C_TYPE_SINT32:
        case PROTOBUF_C_TYPE_SFIXED32:
                fprintf(f, "%" PRId32, *(const int32_t *) p);
                break;
        case PROTOBUF_C_TYPE_UINT32:
        case PROTOBUF_C_TYPE_FIXED32:
                fprintf(f, "%" PRIu32, *(const uint32_t *) p);
                break;
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_SFIXED64:
                fprintf(f, "%" PRId64, *(const int64_t *) p);
                break;
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_FIXED64:
                fprintf(f, "%" PRIu64, *(const uint64_t *) p);
                break;
        case PROTOBUF_C_TYPE_FLOAT:
                fprintf(f, "%.9g", (double) *(const float *) p);
                break;
        case PROTOBUF_C_TYPE_DOUBLE:
                fprintf(f, "%.17g", *(const double *) p);
                break;
        case PROTOBUF_C_TYPE_BOOL:
                fputs(*(const protobuf_c_boolean *) p ? "true" : "false", f);
                break;
        case PROTOBUF_C_TYPE_ENUM: {
                int v = *(const int *) p;
                const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(d->descriptor, v);
                if (ev)
                        json_string(f, ev->name);
                else
                        fprintf(f, "%d", v);
                break;
        }
        case PROTOBUF_C_TYPE_STRING:
                json_string(f, *(char *const *) p);
                break;
        case PROTOBUF_C_TYPE_BYTES: {
                const ProtobufCBinaryData *b = p;
                fputc('"', f);
                for (size_t i = 0; i < b->len; i++)
                        fprintf(f, "%02x", b->data[i]);
                fputc('"', f);
                break;
        }
        case PROTOBUF_C_TYPE_MESSAGE:
                message_write(f, *(ProtobufCMessage *const *) p);
                break;
        }
}

static size_t value_size(const ProtobufCFieldDescriptor *d) {
        switch (d->type) {
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_SFIXED64:
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_FIXED64:
        case PROTOBUF_C_TYPE_DOUBLE:
                return 8;
        case PROTOBUF_C_TYPE_BOOL:
                return sizeof(protobuf_c_boolean);
        case PROTOBUF_C_TYPE_ENUM:
                return sizeof(int);
        case PROTOBUF_C_TYPE_STRING:
        case PROTOBUF_C_TYPE_MESSAGE:
                return sizeof(void *);
        case PROTOBUF_C_TYPE_BYTES:
                return sizeof(ProtobufCBinaryData);
        default:
                return 4;
        }
}

/* Whether an optional or oneof field holds a value. */
static bool field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *d) {
        const char *base = (const char *) m;
        const void *p = base + d->offset;
        if (d->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
                return *(const uint32_t *) (base + d->quantifier_offset) == d->id;
        if (d->type == PROTOBUF_C_TYPE_STRING || d->type == PROTOBUF_C_TYPE_MESSAGE)
                return *(void *const *) p != NULL;
        if (d->label == PROTOBUF_C_LABEL_REQUIRED)
                return true;
        if (d->quantifier_offset)
                return *(const protobuf_c_boolean *) (base + d->quantifier_offset);
        return false;
}

static void message_write(FILE *f, const ProtobufCMessage *m) {
        if (!m) {
                fputs("null", f);
                return;
        }
        const ProtobufCMessageDescriptor *md = m->descriptor;
        const char *base = (const char *) m;
        bool first = true;
        fputc('{', f);
        for (unsigned i = 0; i < md->n_fields; i++) {
                const ProtobufCFieldDescriptor *d = &md->fields[i];
                if (d->label == PROTOBUF_C_LABEL_REPEATED) {
                        size_t n = *(const size_t *) (base + d->quantifier_offset);
                        if (n == 0)
                                continue;
                        fputs(first ? "" : ",", f);
                        first = false;
                        json_string(f, d->name);
                        fputs(":[", f);
                        const char *arr = *(const char *const *) (base + d->offset);
                        for (size_t k = 0; k < n; k++) {
                                fputs(k ? "," : "", f);
                                value_write(f, d, arr + k * value_size(d));
                        }
                        fputc(']', f);
                        continue;
                }
                if (!field_present(m, d))
                        continue;
                fputs(first ? "" : ",", f);
                first = false;
                json_string(f, d->name);
                fputc(':', f);
                value_write(f, d, base + d->offset);
        }
        fputc('}', f);
}

int store_message_json(const ProtobufCMessage *m, char **ret) {
        if (!ret)
                return -EINVAL;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        message_write(f, m);
        if (fclose(f) != 0 || !buf) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

int store_settings_json(const void *blob, size_t size, char **ret) {
        if (!ret || (!blob && size > 0))
                return -EINVAL;
        if (size == 0) {
                *ret = strdup("{}");
                return *ret ? 0 : -ENOMEM;
        }
        Tflite__Proto__TFLiteSettings *t = tflite__proto__tflite_settings__unpack(NULL, size, blob);
        if (!t)
                return -EBADMSG;
        int r = store_message_json(&t->base, ret);
        tflite__proto__tflite_settings__free_unpacked(t, NULL);
        return r;
}
