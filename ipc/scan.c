/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Frame pre-scan: what a payload would cost protobuf-c to unpack, found by
 * walking the wire format against the message descriptor without
 * allocating anything.
 *
 * protobuf-c has no limit on element counts: a repeated message field costs
 * two wire bytes per empty element but a pointer, a whole struct and a
 * scan record per element once unpacked, so a 60 MB frame of them unpacks
 * into gigabytes. The scan counts every field occurrence and packed value
 * (nested messages included) and stops at the first limit exceeded, so its
 * own cost is bounded by the limit, not by the frame.
 */
#include <errno.h>
#include <string.h>

#include "ipc-internal.h"
#include "ipc.h"

/* protobuf-c records each field occurrence while unpacking (its
 * ScannedMember: a tag, a length, a pointer and a field pointer). */
#define SCAN_RECORD_BYTES 32u
#define SCAN_MAX_DEPTH 32

typedef struct scan_state {
        const ipc_scan_limits_t *lim;
        uint64_t elements;
        uint64_t bytes;
} scan_state_t;

static int scan_varint(const uint8_t **p, const uint8_t *end, uint64_t *ret) {
        uint64_t v = 0;

        for (unsigned shift = 0; shift < 70; shift += 7) {
                uint8_t b;

                if (*p >= end)
                        return -EBADMSG;
                b = *(*p)++;
                if (shift < 64)
                        v |= (uint64_t) (b & 0x7f) << shift;
                if (!(b & 0x80)) {
                        *ret = v;
                        return 0;
                }
        }
        return -EBADMSG;
}

/* Count `n` more elements costing `bytes` once unpacked. */
static int scan_charge(scan_state_t *st, uint64_t n, uint64_t bytes) {
        st->elements += n;
        st->bytes += bytes;
        if (st->lim->max_elements && st->elements > st->lim->max_elements)
                return -E2BIG;
        if (st->lim->max_bytes && st->bytes > st->lim->max_bytes)
                return -ENOMEM;
        return 0;
}

static size_t scalar_size(ProtobufCType t) {
        switch (t) {
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_FIXED64:
        case PROTOBUF_C_TYPE_SFIXED64:
        case PROTOBUF_C_TYPE_DOUBLE:
        case PROTOBUF_C_TYPE_STRING:
        case PROTOBUF_C_TYPE_MESSAGE:
                return 8;
        case PROTOBUF_C_TYPE_BYTES:
                return sizeof(ProtobufCBinaryData);
        default:
                return 4;
        }
}

/* Values in a packed run of `len` bytes, stopping early past the limit. */
static int scan_packed(scan_state_t *st, const ProtobufCFieldDescriptor *f, const uint8_t *p, size_t len) {
        uint64_t n = 0, left;

        switch (f->type) {
        case PROTOBUF_C_TYPE_FIXED32:
        case PROTOBUF_C_TYPE_SFIXED32:
        case PROTOBUF_C_TYPE_FLOAT:
                n = len / 4;
                break;
        case PROTOBUF_C_TYPE_FIXED64:
        case PROTOBUF_C_TYPE_SFIXED64:
        case PROTOBUF_C_TYPE_DOUBLE:
                n = len / 8;
                break;
        default:
                /* Varints: one value per byte without the continuation bit.
                 * Count only as far as the limit can still be met. */
                left = st->lim->max_elements ? st->lim->max_elements - st->elements + 1 : UINT64_MAX;
                for (size_t i = 0; i < len && n < left; i++)
                        n += !(p[i] & 0x80);
                break;
        }
        return scan_charge(st, n, n * scalar_size(f->type));
}

static int scan_message(scan_state_t *st, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                        const uint8_t *end, int depth, const char *id_field, uint64_t *ret_id);

static int scan_field(scan_state_t *st, const ProtobufCFieldDescriptor *f, unsigned wire, const uint8_t *p,
                      size_t len, int depth) {
        bool repeated = f->label == PROTOBUF_C_LABEL_REPEATED;
        uint64_t cost = SCAN_RECORD_BYTES + (repeated ? scalar_size(f->type) : 0);
        int r;

        if (wire != 2)
                return scan_charge(st, 1, cost);
        switch (f->type) {
        case PROTOBUF_C_TYPE_STRING:
        case PROTOBUF_C_TYPE_BYTES:
                return scan_charge(st, 1, cost + len + 1);
        case PROTOBUF_C_TYPE_MESSAGE:
                r = scan_charge(st, 1, cost + ((const ProtobufCMessageDescriptor *) f->descriptor)->sizeof_message);
                if (r < 0)
                        return r;
                return scan_message(st, f->descriptor, p, p + len, depth + 1, NULL, NULL);
        default:
                /* A scalar in a length-delimited run: packed. */
                r = scan_charge(st, 1, cost);
                if (r < 0)
                        return r;
                return scan_packed(st, f, p, len);
        }
}

static int scan_message(scan_state_t *st, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                        const uint8_t *end, int depth, const char *id_field, uint64_t *ret_id) {
        const ProtobufCFieldDescriptor *idf = id_field ? protobuf_c_message_descriptor_get_field_by_name(desc, id_field) : NULL;

        if (depth > SCAN_MAX_DEPTH)
                return -E2BIG;
        while (p < end) {
                const ProtobufCFieldDescriptor *f;
                const uint8_t *val = NULL;
                uint64_t tag, v = 0;
                size_t len = 0;
                unsigned wire;
                int r;

                r = scan_varint(&p, end, &tag);
                if (r < 0)
                        return r;
                wire = (unsigned) (tag & 7);
                if (tag >> 3 == 0 || tag >> 3 > INT32_MAX)
                        return -EBADMSG;
                switch (wire) {
                case 0:
                        r = scan_varint(&p, end, &v);
                        if (r < 0)
                                return r;
                        break;
                case 1:
                case 5:
                        len = wire == 1 ? 8 : 4;
                        if ((size_t) (end - p) < len)
                                return -EBADMSG;
                        p += len;
                        break;
                case 2:
                        r = scan_varint(&p, end, &v);
                        if (r < 0)
                                return r;
                        if (v > (uint64_t) (end - p))
                                return -EBADMSG;
                        val = p;
                        len = (size_t) v;
                        p += len;
                        break;
                default:
                        /* Groups: protobuf-c cannot unpack them either. */
                        return -EBADMSG;
                }
                f = protobuf_c_message_descriptor_get_field(desc, (unsigned) (tag >> 3));
                if (!f) {
                        /* Kept as an unknown field: a record and a copy. */
                        r = scan_charge(st, 1, SCAN_RECORD_BYTES + sizeof(ProtobufCMessageUnknownField) + len);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (f == idf && wire == 0 && ret_id)
                        *ret_id = v;
                r = scan_field(st, f, wire, val, len, depth);
                if (r < 0)
                        return r;
        }
        return 0;
}

int ipc_frame_scan(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
                   const ipc_scan_limits_t *lim, ipc_scan_result_t *ret) {
        ipc_scan_limits_t none = { 0 };
        scan_state_t st;
        uint64_t id = 0;
        int r;

        if (!desc || (!data && len > 0))
                return -EINVAL;
        st = (scan_state_t) { .lim = lim ? lim : &none, .bytes = desc->sizeof_message };
        r = len > 0 ? scan_message(&st, desc, data, data + len, 0, "request_id", &id) : 0;
        if (ret)
                *ret = (ipc_scan_result_t) { .elements = st.elements, .bytes = st.bytes, .request_id = id };
        return r;
}
