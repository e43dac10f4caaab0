/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: reading JSON written with a proto's field names. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/*
 * Field `snake` of object `o` (a proto field name as in the .proto), or
 * its proto3 JSON name (lowerCamelCase: "cropping_fraction" ->
 * "croppingFraction"). NULL when `o` is not an object or has neither.
 */
json_object *eval__json_field(json_object *o, const char *snake);

/* A number (int or double; a decimal string too, as proto3 JSON writes
 * 64-bit ints) into *ret. 0 or -EINVAL. */
int eval__json_number(json_object *v, double *ret);
