/* SPDX-License-Identifier: Apache-2.0 */
/* Reading JSON written with a proto's field names (json-util.h). */
#include <errno.h>
#include <stdlib.h>

#include "json-util.h"

json_object *eval__json_field(json_object *o, const char *snake) {
        json_object *v = NULL;
        char camel[128];
        size_t n = 0;
        bool up = false;

        if (!o || !json_object_is_type(o, json_type_object))
                return NULL;
        if (json_object_object_get_ex(o, snake, &v))
                return v;
        for (const char *p = snake; *p && n + 1 < sizeof(camel); p++) {
                if (*p == '_') {
                        up = true;
                        continue;
                }
                camel[n++] = up && *p >= 'a' && *p <= 'z' ? (char) (*p - 'a' + 'A') : *p;
                up = false;
        }
        camel[n] = '\0';
        return json_object_object_get_ex(o, camel, &v) ? v : NULL;
}

int eval__json_number(json_object *v, double *ret) {
        if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
                *ret = json_object_get_double(v);
                return 0;
        }
        if (json_object_is_type(v, json_type_string)) {
                const char *s = json_object_get_string(v);
                char *end;
                double d = strtod(s, &end);
                if (end == s || *end)
                        return -EINVAL;
                *ret = d;
                return 0;
        }
        return -EINVAL;
}
