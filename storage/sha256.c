/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 through OpenSSL's libcrypto, which uses the CPU's SHA extensions
 * or vector units where it has them: a model is hashed on every prepare
 * from bytes, so a 28 MB model costs ~15 ms here instead of ~170 ms with a
 * portable loop. The low-level SHA256_* calls keep init from failing (no
 * allocation); OpenSSL 3 marks them deprecated but keeps them. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <string.h>

#include <openssl/sha.h>

#include "storage-internal.h"

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((store_sha256_t *) 0)->opaque), "store_sha256_t too small");

void store_sha256_init(store_sha256_t *ctx) {
        (void) SHA256_Init((SHA256_CTX *) ctx->opaque);
}

void store_sha256_update(store_sha256_t *ctx, const void *data, size_t size) {
        if (size > 0)
                (void) SHA256_Update((SHA256_CTX *) ctx->opaque, data, size);
}

void store_sha256_final(store_sha256_t *ctx, uint8_t ret_digest[32]) {
        (void) SHA256_Final(ret_digest, (SHA256_CTX *) ctx->opaque);
        memset(ctx->opaque, 0, sizeof(ctx->opaque));
}

void store__hex(const uint8_t digest[32], char ret_hex[STORE_SHA256_HEX_SIZE]) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned i = 0; i < 32; i++) {
                ret_hex[2 * i] = digits[digest[i] >> 4];
                ret_hex[2 * i + 1] = digits[digest[i] & 0xf];
        }
        ret_hex[64] = '\0';
}

void store_sha256_hex(const void *data, size_t size, char ret_hex[STORE_SHA256_HEX_SIZE]) {
        store_sha256_t ctx;
        uint8_t d[32];
        store_sha256_init(&ctx);
        store_sha256_update(&ctx, data, size);
        store_sha256_final(&ctx, d);
        store__hex(d, ret_hex);
}

bool store_sha256_hex_valid(const char *s) {
        if (!s)
                return false;
        for (unsigned i = 0; i < 64; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return s[64] == '\0';
}
