/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 (FIPS 180-4), for model identity: a model is the digest of its
 * bytes. Pure and thread-safe (no shared state). When the model store
 * (storage/) lands, its store_sha256_*() may replace this file.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DAEMON_SHA256_HEX_SIZE 65  /* 64 hex digits + NUL */

typedef struct daemon_sha256 {
        uint32_t h[8];
        uint64_t total;         /* bytes hashed */
        uint8_t block[64];
        size_t n_block;         /* bytes buffered in block */
} daemon_sha256_t;

void daemon_sha256_init(daemon_sha256_t *c);
void daemon_sha256_update(daemon_sha256_t *c, const void *data, size_t size);
/* Write the digest; `c` must be initialised again before reuse. */
void daemon_sha256_final(daemon_sha256_t *c, uint8_t ret[32]);

/* One-shot: lowercase hex of the digest of data[0..size). */
void daemon_sha256_hex(const void *data, size_t size, char ret[DAEMON_SHA256_HEX_SIZE]);

/* True for 64 lowercase or uppercase hex digits. */
bool daemon_sha256_hex_valid(const char *s);
