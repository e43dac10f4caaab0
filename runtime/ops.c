/* SPDX-License-Identifier: Apache-2.0 */
/* Names of builtin operators and option tables, from ops.inc / options.inc. */
#include <stdio.h>

#include "model.h"

static const char *const op_names[_RT_BUILTIN_MAX] = {
#define RT_OP(name, code, options) [code] = #name,
#include "accel/ops.inc"
#undef RT_OP
};

static const int16_t op_options[_RT_BUILTIN_MAX] = {
#define RT_OP(name, code, options) [code] = RT_OPTIONS_##options,
#include "accel/ops.inc"
#undef RT_OP
};

static const char *const options_names[_RT_OPTIONS_MAX] = {
        [RT_OPTIONS_NONE] = "NONE",
#define RT_OPTIONS(tag, name, str) [tag] = str,
#include "accel/options.inc"
#undef RT_OPTIONS
};

static __thread char unknown_name[32];

const char *rt_op_name(int32_t builtin_code) {
        if (builtin_code >= 0 && builtin_code < _RT_BUILTIN_MAX && op_names[builtin_code])
                return op_names[builtin_code];
        (void) snprintf(unknown_name, sizeof(unknown_name), "BUILTIN_%d", builtin_code);
        return unknown_name;
}

const char *rt_model_op_name(const rt_model_op_t *op) {
        if (!op)
                return "(null)";
        if (op->builtin_code == RT_BUILTIN_CUSTOM && op->custom_code)
                return op->custom_code;
        return rt_op_name(op->builtin_code);
}

rt_options_type_t rt_op_options_type(int32_t builtin_code) {
        if (builtin_code < 0 || builtin_code >= _RT_BUILTIN_MAX || !op_names[builtin_code])
                return RT_OPTIONS_ANY;
        return (rt_options_type_t) op_options[builtin_code];
}

const char *rt_options_type_name(int type) {
        if (type >= 0 && type < _RT_OPTIONS_MAX && options_names[type])
                return options_names[type];
        (void) snprintf(unknown_name, sizeof(unknown_name), "BuiltinOptions_%d", type);
        return unknown_name;
}
