/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256, once (libcrypto): models are named by the digest of their
 * bytes everywhere — the store, the benchmark events, the compilation
 * cache, accelctl. Pure and thread-safe.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 64 lowercase hex digits and a NUL. */
#define ACC_SHA256_HEX_SIZE 65

typedef struct acc_sha256 {
        uint64_t opaque[32];    /* libcrypto's SHA256_CTX */
} acc_sha256_t;

/* Incremental FIPS 180-4 SHA-256 (libcrypto). init cannot fail; update with size 0 is a
 * no-op (data may then be NULL); final writes 32 bytes and leaves ctx
 * unusable until the next init. */
void acc_sha256_init(acc_sha256_t *ctx);
void acc_sha256_update(acc_sha256_t *ctx, const void *data, size_t size);
void acc_sha256_final(acc_sha256_t *ctx, uint8_t ret_digest[32]);

/* 32-byte digest -> 64 lowercase hex digits plus NUL. */
void acc_sha256_digest_to_hex(const uint8_t digest[32], char ret_hex[ACC_SHA256_HEX_SIZE]);

/* One-shot digest of data[0..size) as lowercase hex into ret_hex (65 bytes,
 * NUL-terminated). */
void acc_sha256_hex(const void *data, size_t size, char ret_hex[ACC_SHA256_HEX_SIZE]);

/* true if s is exactly 64 lowercase hex digits. NULL gives false. */
bool acc_sha256_hex_valid(const char *s);

/* Digest of the first `size` bytes of fd (from offset 0, read with pread, so
 * the fd's position is untouched); size == UINT64_MAX hashes to EOF. Writes
 * the hex digest and, if ret_size is non-NULL, the bytes hashed. -EIO if
 * the file ends before `size` bytes, -errno from pread. Thread-safe. */
int acc_sha256_fd(int fd, uint64_t size, char ret_hex[ACC_SHA256_HEX_SIZE], uint64_t *ret_size);
