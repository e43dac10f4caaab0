/* SPDX-License-Identifier: Apache-2.0 */
/* Small SQLite helpers and the one SQLITE_* -> -errno table. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "storage-internal.h"

int store__errno(int sqlite_rc) {
        switch (sqlite_rc & 0xff) {
        case SQLITE_OK:
        case SQLITE_ROW:
        case SQLITE_DONE:
                return 0;
        case SQLITE_NOMEM:
                return -ENOMEM;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
                return -EBUSY;
        case SQLITE_READONLY:
                return -EROFS;
        case SQLITE_PERM:
        case SQLITE_AUTH:
                return -EACCES;
        case SQLITE_FULL:
                return -ENOSPC;
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
                return -EBADMSG;
        case SQLITE_CONSTRAINT:
                return -EEXIST;
        case SQLITE_TOOBIG:
                return -E2BIG;
        case SQLITE_MISUSE:
        case SQLITE_RANGE:
        case SQLITE_MISMATCH:
                return -EINVAL;
        case SQLITE_INTERRUPT:
                return -EINTR;
        default:
                return -EIO;
        }
}

int store__prepare(store_db_t *db, const char *sql, sqlite3_stmt **ret) {
        return store__errno(sqlite3_prepare_v2(db->db, sql, -1, ret, NULL));
}

int store__exec(sqlite3 *db, const char *sql) {
        return store__errno(sqlite3_exec(db, sql, NULL, NULL, NULL));
}

int store__begin(store_db_t *db) {
        /* IMMEDIATE takes the write lock now, so a busy database fails here
         * (after busy_timeout) and never halfway through a transaction. */
        return store__exec(db->db, "BEGIN IMMEDIATE");
}

int store__commit(store_db_t *db) {
        return store__exec(db->db, "COMMIT");
}

void store__rollback(store_db_t *db) {
        if (!sqlite3_get_autocommit(db->db))
                (void) sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
}

int store__bind_text(sqlite3_stmt *s, int idx, const char *text) {
        if (!text)
                return store__errno(sqlite3_bind_null(s, idx));
        return store__errno(sqlite3_bind_text(s, idx, text, -1, SQLITE_TRANSIENT));
}

char *store__column_strdup(sqlite3_stmt *s, int col, bool *ok) {
        const unsigned char *t = sqlite3_column_text(s, col);
        if (!t)
                return NULL;
        char *r = strdup((const char *) t);
        if (!r)
                *ok = false;
        return r;
}

int64_t store__now_us(void) {
        return acc_clock_us(CLOCK_REALTIME);
}

int64_t store__boottime_us(void) {
        return acc_clock_us(CLOCK_BOOTTIME);
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

int store__median(const int64_t *v, size_t n, int64_t *ret) {
        if (n == 0)
                return -EINVAL;
        _cleanup_free_ int64_t *c = malloc(n * sizeof(*c));
        if (!c)
                return -ENOMEM;
        memcpy(c, v, n * sizeof(*c));
        qsort(c, n, sizeof(*c), cmp_i64);
        if (n % 2) {
                *ret = c[n / 2];
                return 0;
        }
        /* Halves first, so the sum cannot overflow. */
        int64_t a = c[n / 2 - 1], b = c[n / 2];
        *ret = a / 2 + b / 2 + (a % 2 + b % 2) / 2;
        return 0;
}
