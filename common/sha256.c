/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 through OpenSSL's libcrypto, which uses the CPU's SHA extensions
 * or vector units where it has them: a model is hashed on every prepare
 * from bytes, so a 28 MB model costs ~15 ms here instead of ~170 ms with a
 * portable loop. The low-level SHA256_* calls keep init from failing (no
 * allocation); OpenSSL 3 marks them deprecated but keeps them. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "cleanup.h"
#include "sha256.h"

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((acc_sha256_t *) 0)->opaque), "acc_sha256_t too small");

void acc_sha256_init(acc_sha256_t *ctx) {
        (void) SHA256_Init((SHA256_CTX *) ctx->opaque);
}

void acc_sha256_update(acc_sha256_t *ctx, const void *data, size_t size) {
        if (size > 0)
                (void) SHA256_Update((SHA256_CTX *) ctx->opaque, data, size);
}

void acc_sha256_final(acc_sha256_t *ctx, uint8_t ret_digest[32]) {
        (void) SHA256_Final(ret_digest, (SHA256_CTX *) ctx->opaque);
        memset(ctx->opaque, 0, sizeof(ctx->opaque));
}

void acc_sha256_digest_to_hex(const uint8_t digest[32], char ret_hex[ACC_SHA256_HEX_SIZE]) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned i = 0; i < 32; i++) {
                ret_hex[2 * i] = digits[digest[i] >> 4];
                ret_hex[2 * i + 1] = digits[digest[i] & 0xf];
        }
        ret_hex[64] = '\0';
}

void acc_sha256_hex(const void *data, size_t size, char ret_hex[ACC_SHA256_HEX_SIZE]) {
        acc_sha256_t ctx;
        uint8_t d[32];
        acc_sha256_init(&ctx);
        acc_sha256_update(&ctx, data, size);
        acc_sha256_final(&ctx, d);
        acc_sha256_digest_to_hex(d, ret_hex);
}

bool acc_sha256_hex_valid(const char *s) {
        if (!s)
                return false;
        for (unsigned i = 0; i < 64; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return s[64] == '\0';
}

int acc_sha256_fd(int fd, uint64_t size, char ret_hex[ACC_SHA256_HEX_SIZE], uint64_t *ret_size) {
        if (fd < 0 || !ret_hex)
                return -EINVAL;
        _cleanup_free_ uint8_t *buf = malloc(1 << 20);
        if (!buf)
                return -ENOMEM;
        acc_sha256_t ctx;
        acc_sha256_init(&ctx);
        uint64_t total = 0;
        while (total < size) {
                size_t want = size - total < (1u << 20) ? (size_t) (size - total) : (1u << 20);
                ssize_t n = pread(fd, buf, want, (off_t) total);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0) {
                        if (size != UINT64_MAX)
                                return -EIO;
                        break;
                }
                acc_sha256_update(&ctx, buf, (size_t) n);
                total += (uint64_t) n;
        }
        uint8_t d[32];
        acc_sha256_final(&ctx, d);
        acc_sha256_digest_to_hex(d, ret_hex);
        if (ret_size)
                *ret_size = total;
        return 0;
}
