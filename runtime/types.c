/* SPDX-License-Identifier: Apache-2.0 */
#include "kernel.h"

static const struct {
        const char *name;
        size_t size;
} types[_RT_TYPE_MAX] = {
        [RT_TYPE_FLOAT32] = { "float32", 4 },
        [RT_TYPE_FLOAT16] = { "float16", 2 },
        [RT_TYPE_INT32] = { "int32", 4 },
        [RT_TYPE_UINT8] = { "uint8", 1 },
        [RT_TYPE_INT64] = { "int64", 8 },
        [RT_TYPE_STRING] = { "string", 0 },
        [RT_TYPE_BOOL] = { "bool", 1 },
        [RT_TYPE_INT16] = { "int16", 2 },
        [RT_TYPE_COMPLEX64] = { "complex64", 8 },
        [RT_TYPE_INT8] = { "int8", 1 },
        [RT_TYPE_FLOAT64] = { "float64", 8 },
        [RT_TYPE_COMPLEX128] = { "complex128", 16 },
        [RT_TYPE_UINT64] = { "uint64", 8 },
        [RT_TYPE_RESOURCE] = { "resource", 0 },
        [RT_TYPE_VARIANT] = { "variant", 0 },
        [RT_TYPE_UINT32] = { "uint32", 4 },
        [RT_TYPE_UINT16] = { "uint16", 2 },
        [RT_TYPE_INT4] = { "int4", 1 },
};

size_t rt_type_size(rt_type_t type) {
        return (unsigned) type < _RT_TYPE_MAX ? types[type].size : 0;
}

const char *rt_type_name(rt_type_t type) {
        return (unsigned) type < _RT_TYPE_MAX ? types[type].name : "unknown";
}
