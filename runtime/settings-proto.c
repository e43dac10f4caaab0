/* SPDX-License-Identifier: Apache-2.0 */
/* TFLiteSettings protobuf -> rt_settings_t (settings.h). */
#include <errno.h>
#include <stdio.h>

#include "acceleration.pb-c.h"
#include "settings.h"

int rt_settings_from_proto(const Tflite__Proto__TFLiteSettings *p, rt_settings_t *ret, char *err,
                           size_t err_size) {
        if (!p || !ret)
                return -EINVAL;
        rt_settings_t s;
        rt_settings_init(&s);
        if (p->has_delegate) {
                if ((int) p->delegate < RT_DELEGATE_NONE || (int) p->delegate > RT_DELEGATE_EDGETPU_CORAL) {
                        if (err && err_size)
                                snprintf(err, err_size, "delegate: unknown value %d", (int) p->delegate);
                        return -EINVAL;
                }
                s.delegate = (rt_delegate_t) p->delegate;
                if (s.delegate != RT_DELEGATE_NONE)
                        snprintf(s.delegate_name, sizeof(s.delegate_name), "%s", rt_settings_delegate_name(&s));
        }
        if (p->cpu_settings && p->cpu_settings->has_num_threads)
                s.cpu_num_threads = p->cpu_settings->num_threads;
        if (p->xnnpack_settings && p->xnnpack_settings->has_num_threads)
                s.xnnpack_num_threads = p->xnnpack_settings->num_threads;
        if (p->has_max_delegated_partitions)
                s.max_delegated_partitions = p->max_delegated_partitions;
        if (p->fallback_settings) {
                s.fallback_on_compilation_error = p->fallback_settings->allow_automatic_fallback_on_compilation_error;
                s.fallback_on_execution_error = p->fallback_settings->allow_automatic_fallback_on_execution_error;
        }
        if (s.cpu_num_threads < -1 || s.xnnpack_num_threads < -1) {
                if (err && err_size)
                        snprintf(err, err_size, "num_threads: negative thread count");
                return -EINVAL;
        }
        *ret = s;
        return 0;
}

int rt_settings_parse_proto(const void *data, size_t size, rt_settings_t *ret, char *err, size_t err_size) {
        if (!data && size)
                return -EINVAL;
        Tflite__Proto__TFLiteSettings *p = tflite__proto__tflite_settings__unpack(NULL, size, data);
        if (!p) {
                if (err && err_size)
                        snprintf(err, err_size, "TFLiteSettings: malformed protobuf");
                return -EINVAL;
        }
        int r = rt_settings_from_proto(p, ret, err, err_size);
        tflite__proto__tflite_settings__free_unpacked(p, NULL);
        return r;
}
