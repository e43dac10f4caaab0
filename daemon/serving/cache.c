/* SPDX-License-Identifier: Apache-2.0 */
/* The compilation cache: keys, records, and their checked trip through storage/. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file-read.h"
#include "bench.h"
#include "runner.h"
#include "settings.h"
#include "cache.h"
#include "cleanup.h"
#include "driver.h"
#include "service.pb-c.h"
#include "storage-owner.h"

/* Longest record file we read back (a record is a few hundred bytes). */
#define RECORD_MAX_BYTES (1u << 20)

int daemon_cache_key(uid_t uid, const void *token, size_t size, char *buf, size_t buf_size) {
        static const char hex[] = "0123456789abcdef";
        const uint8_t *t = token;
        int n;

        if (!token || size == 0 || size > DAEMON_CACHE_TOKEN_MAX || !buf || buf_size < DAEMON_CACHE_KEY_SIZE)
                return -EINVAL;
        n = snprintf(buf, buf_size, "uid=%u;token=", (unsigned) uid);
        if (n < 0)
                return -EINVAL;
        for (size_t i = 0; i < size; i++) {
                buf[n++] = hex[t[i] >> 4];
                buf[n++] = hex[t[i] & 15];
        }
        buf[n] = '\0';
        return 0;
}

bool daemon_cache_available(void) {
        return daemon_storage_thread() != NULL;
}

void daemon_cache_record_done(daemon_cache_record_t *r) {
        if (!r)
                return;
        free(r->settings);
        free(r->settings_key);
        for (size_t i = 0; i < r->n_parts; i++)
                free(r->part_drivers[i]);
        free(r->part_drivers);
        free(r->part_nodes);
        free(r->driver);
        free(r->driver_versions);
        *r = (daemon_cache_record_t) { 0 };
}

int daemon_cache_record_pack(const daemon_cache_record_t *r, uint8_t **ret, size_t *ret_size) {
        Acceld__CacheRecord m = ACCELD__CACHE_RECORD__INIT;
        _cleanup_free_ Acceld__Partition *parts = NULL;
        _cleanup_free_ Acceld__Partition **pp = NULL;
        uint8_t *buf;
        size_t size;

        if (!r || !ret || !ret_size || !r->key[0] || !acc_sha256_hex_valid(r->model_sha256) || !r->settings_key ||
            !r->driver || !r->driver_versions || (r->n_parts && (!r->part_drivers || !r->part_nodes)))
                return -EINVAL;
        parts = calloc(r->n_parts + 1, sizeof(*parts));
        pp = calloc(r->n_parts + 1, sizeof(*pp));
        if (!parts || !pp)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_parts; i++) {
                acceld__partition__init(&parts[i]);
                parts[i].driver = r->part_drivers[i];
                parts[i].has_nodes = 1;
                parts[i].nodes = r->part_nodes[i];
                pp[i] = &parts[i];
        }
        m.has_format = 1;
        m.format = DAEMON_CACHE_FORMAT;
        m.token = (char *) r->key;
        m.model_sha256 = (char *) r->model_sha256;
        m.has_settings = 1;
        m.settings.data = r->settings;
        m.settings.len = r->settings_size;
        m.settings_key = r->settings_key;
        m.n_partitions = r->n_parts;
        m.partitions = pp;
        m.driver = r->driver;
        m.driver_versions = r->driver_versions;

        size = acceld__cache_record__get_packed_size(&m);
        buf = malloc(size + 1);
        if (!buf)
                return -ENOMEM;
        *ret_size = acceld__cache_record__pack(&m, buf);
        *ret = buf;
        return 0;
}

static char *strdup0(const char *s) {
        return strdup(s ? s : "");
}

int daemon_cache_record_unpack(const void *data, size_t size, daemon_cache_record_t *ret) {
        Acceld__CacheRecord *m;
        daemon_cache_record_t r = { 0 };
        int k = 0;

        if (!ret || (!data && size))
                return -EINVAL;
        m = acceld__cache_record__unpack(NULL, size, data);
        if (!m)
                return -EBADMSG;
        if (!m->has_format || !m->token || !m->model_sha256 || !m->settings_key || !m->driver ||
            !m->driver_versions || !acc_sha256_hex_valid(m->model_sha256) ||
            strlen(m->token) >= sizeof(r.key)) {
                acceld__cache_record__free_unpacked(m, NULL);
                return -EBADMSG;
        }
        if (m->format != DAEMON_CACHE_FORMAT) {
                acceld__cache_record__free_unpacked(m, NULL);
                return -EPROTO;
        }
        memcpy(r.key, m->token, strlen(m->token) + 1);
        memcpy(r.model_sha256, m->model_sha256, ACC_SHA256_HEX_SIZE);
        if (m->settings.len > 0) {
                r.settings = malloc(m->settings.len);
                if (r.settings)
                        memcpy(r.settings, m->settings.data, m->settings.len);
                else
                        k = -ENOMEM;
                r.settings_size = m->settings.len;
        }
        r.settings_key = strdup0(m->settings_key);
        r.driver = strdup0(m->driver);
        r.driver_versions = strdup0(m->driver_versions);
        r.part_drivers = calloc(m->n_partitions + 1, sizeof(char *));
        r.part_nodes = calloc(m->n_partitions + 1, sizeof(int32_t));
        if (!r.settings_key || !r.driver || !r.driver_versions || !r.part_drivers || !r.part_nodes)
                k = -ENOMEM;
        for (size_t i = 0; k == 0 && i < m->n_partitions; i++) {
                r.part_drivers[i] = strdup0(m->partitions[i]->driver);
                r.part_nodes[i] = m->partitions[i]->nodes;
                r.n_parts = i + 1;
                if (!r.part_drivers[i])
                        k = -ENOMEM;
        }
        acceld__cache_record__free_unpacked(m, NULL);
        if (k < 0) {
                daemon_cache_record_done(&r);
                return k;
        }
        *ret = r;
        return 0;
}

void daemon_cache_driver_versions(char *const *drivers, size_t n, const char *driver, char *buf, size_t size) {
        size_t off = 0;

        if (size == 0)
                return;
        buf[0] = '\0';
        for (size_t i = 0; i <= n; i++) {
                const char *name = i < n ? drivers[i] : driver;
                const rt_driver_t *d;
                bool seen = false;
                int k;

                if (!name || !name[0])
                        continue;
                for (size_t j = 0; j < i && !seen; j++)
                        seen = strcmp(drivers[j], name) == 0;
                if (seen)
                        continue;
                d = rt_driver_find(name);
                k = snprintf(buf + off, size - off, "%s%s=%s", off ? ";" : "", name,
                             d ? (d->version ? d->version : "") : "?");
                if (k < 0 || (size_t) k >= size - off)
                        break;
                off += (size_t) k;
        }
}

/* ---- write ---- */

typedef struct write_call {
        const char *key;
        const void *model;
        size_t model_size;
        const daemon_cache_record_t *rec;
        const uint8_t *blob;
        size_t blob_size;
        const char *what;               /* which step failed */
} write_call_t;

static int write_job(store_db_t *db, void *userdata) {
        write_call_t *c = userdata;
        store_cache_key_t k = {
                .token = c->key,
                .model_sha256 = c->rec->model_sha256,
                .settings_key = c->rec->settings_key,
                .driver = c->rec->driver,
                .driver_version = c->rec->driver_versions,
        };
        store_model_t m = { 0 };
        int r;

        /* Re-hashing a stored copy is cheaper than rewriting and fsyncing
         * it; a missing or damaged copy is (re)written. */
        c->what = "storing the model";
        if (store_model_verify(db, c->rec->model_sha256) < 0) {
                r = store_model_add(db, c->model, c->model_size, NULL, &m);
                if (r < 0)
                        return r;
                r = strcmp(m.sha256, c->rec->model_sha256) == 0 ? 0 : -EBADMSG;
                store_model_done(&m);
                if (r < 0)
                        return r;
        }
        c->what = "writing the cache entry";
        return store_cache_put(db, &k, c->blob, c->blob_size);
}

int daemon_cache_write(const char *key, const daemon_instance_t *inst, char *err, size_t err_size) {
        _cleanup_(daemon_cache_record_done) daemon_cache_record_t rec = { 0 };
        _cleanup_free_ uint8_t *blob = NULL;
        char versions[1024];
        size_t blob_size = 0;
        store_thread_t *t = daemon_storage_thread();
        write_call_t c;
        int r;

        if (!key || !inst)
                return -EINVAL;
        if (!t) {
                (void) snprintf(err, err_size, "the daemon has no state directory for a compilation cache");
                return -ENODEV;
        }
        if (strlen(key) >= sizeof(rec.key))
                return -EINVAL;
        memcpy(rec.key, key, strlen(key) + 1);
        memcpy(rec.model_sha256, inst->model->sha256, sizeof(rec.model_sha256));
        r = rt_settings_pack(&inst->settings, &rec.settings, &rec.settings_size);
        if (r < 0)
                return r;
        rec.settings_key = strdup(inst->settings_key);
        rec.driver = strdup(inst->queue);
        rec.part_drivers = calloc(inst->n_partitions + 1, sizeof(char *));
        rec.part_nodes = calloc(inst->n_partitions + 1, sizeof(int32_t));
        if (!rec.settings_key || !rec.driver || !rec.part_drivers || !rec.part_nodes)
                return -ENOMEM;
        for (size_t i = 0; i < inst->n_partitions; i++) {
                rec.part_drivers[i] = strdup(inst->partitions[i].driver ? inst->partitions[i].driver : "");
                rec.n_parts = i + 1;
                if (!rec.part_drivers[i])
                        return -ENOMEM;
                rec.part_nodes[i] = inst->partitions[i].nodes;
        }
        daemon_cache_driver_versions(rec.part_drivers, rec.n_parts, rec.driver, versions, sizeof(versions));
        rec.driver_versions = strdup(versions);
        if (!rec.driver_versions)
                return -ENOMEM;
        r = daemon_cache_record_pack(&rec, &blob, &blob_size);
        if (r < 0)
                return r;

        c = (write_call_t) {
                .key = key,
                .model = inst->model->map ? inst->model->map : inst->model->copy,
                .model_size = inst->model->size,
                .rec = &rec,
                .blob = blob,
                .blob_size = blob_size,
                .what = "queueing the write",
        };
        r = store_thread_call(t, write_job, &c);
        if (r < 0)
                (void) snprintf(err, err_size, "cache entry not written: %s: %s", c.what, strerror(-r));
        return r;
}

/* ---- load ---- */

typedef struct load_call {
        const char *key;
        daemon_cache_record_t rec;
        char *err;
        size_t err_size;
} load_call_t;

/* Read <state>/cache/<sha256(key)>.bin, the file storage/ names after the
 * key: only to learn what the entry claims to be; store_cache_get() then
 * checks every byte against the index before any of it is used. */
static int file_peek(store_db_t *db, const char *key, uint8_t **ret, size_t *ret_size) {
        char h[ACC_SHA256_HEX_SIZE], path[4096];
        _cleanup_close_ int fd = -1;
        int r;

        acc_sha256_hex(key, strlen(key), h);
        if (snprintf(path, sizeof(path), "%s/cache/%s.bin", store_db_state_dir(db), h) >= (int) sizeof(path))
                return -ENAMETOOLONG;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = acc_fd_read(fd, RECORD_MAX_BYTES, (void **) ret, ret_size);
        return r == -EINVAL || r == -EFBIG ? -EBADMSG : r;
}

static int load_verify(store_db_t *db, load_call_t *c) {
        _cleanup_(daemon_cache_record_done) daemon_cache_record_t claimed = { 0 }, rec = { 0 };
        _cleanup_free_ uint8_t *peek = NULL;
        _cleanup_free_ void *data = NULL;
        size_t peek_size = 0, size = 0;
        char versions[1024], key[1024];
        rt_settings_t s;
        int r;

        r = file_peek(db, c->key, &peek, &peek_size);
        if (r == -ENOENT) {
                /* A row without its file is stale; no row at all is a miss. */
                if (store_cache_remove(db, c->key) == 0) {
                        (void) snprintf(c->err, c->err_size, "its file is gone");
                        return -ESTALE;
                }
                (void) snprintf(c->err, c->err_size, "no cache entry");
                return -ENOENT;
        }
        if (r < 0) {
                (void) snprintf(c->err, c->err_size, "cannot read the entry: %s", strerror(-r));
                return r == -EBADMSG ? r : -EIO;
        }
        r = daemon_cache_record_unpack(peek, peek_size, &claimed);
        if (r == -EPROTO) {
                (void) snprintf(c->err, c->err_size, "it was written in another format");
                return -ESTALE;
        }
        if (r < 0) {
                (void) snprintf(c->err, c->err_size, "the entry does not decode (tampered or torn)");
                return r == -ENOMEM ? r : -EBADMSG;
        }
        {
                store_cache_key_t k = {
                        .token = c->key,
                        .model_sha256 = claimed.model_sha256,
                        .settings_key = claimed.settings_key,
                        .driver = claimed.driver,
                        .driver_version = claimed.driver_versions,
                };

                r = store_cache_get(db, &k, NULL, &data, &size);
        }
        if (r == -ENOENT) {
                (void) snprintf(c->err, c->err_size, "no cache entry");
                return -ENOENT;
        }
        if (r == -ESTALE || r == -EBADMSG) {
                /* The file disagrees with its index row: its claims (-ESTALE
                 * here, as they were read from the file) or its checksum. */
                (void) snprintf(c->err, c->err_size, "the entry's file does not match its checksum (tampered or torn)");
                return -EBADMSG;
        }
        if (r < 0) {
                (void) snprintf(c->err, c->err_size, "cannot read the cache index: %s", strerror(-r));
                return r;
        }
        /* From here on only the verified bytes count. */
        r = daemon_cache_record_unpack(data, size, &rec);
        if (r < 0 || strcmp(rec.key, c->key) != 0) {
                (void) snprintf(c->err, c->err_size, "the entry does not belong to this token");
                return r == -ENOMEM ? r : -EBADMSG;
        }

        daemon_cache_driver_versions(rec.part_drivers, rec.n_parts, rec.driver, versions, sizeof(versions));
        if (strcmp(versions, rec.driver_versions) != 0) {
                (void) snprintf(c->err, c->err_size, "driver versions differ (recorded %s, now %s)",
                                rec.driver_versions, versions);
                return -ESTALE;
        }
        r = rt_settings_parse_proto(rec.settings, rec.settings_size, &s, NULL, 0);
        if (r < 0) {
                (void) snprintf(c->err, c->err_size, "the recorded settings do not decode");
                return -ESTALE;
        }
        rt_settings_key(&s, key, sizeof(key));
        rt_settings_done(&s);
        if (strcmp(key, rec.settings_key) != 0) {
                (void) snprintf(c->err, c->err_size, "settings differ (recorded %s, now %s)", rec.settings_key, key);
                return -ESTALE;
        }
        r = store_model_verify(db, rec.model_sha256);
        if (r < 0) {
                (void) snprintf(c->err, c->err_size, "model %s %s", rec.model_sha256,
                                r == -ENOENT ? "is no longer in the model store"
                                : r == -EBADMSG ? "file changed"
                                : r == -ESTALE ? "file is gone" : strerror(-r));
                return r == -ENOENT || r == -EBADMSG || r == -ESTALE ? -ESTALE : r;
        }
        (void) store_model_touch(db, rec.model_sha256);
        c->rec = rec;
        rec = (daemon_cache_record_t) { 0 };
        return 0;
}

static int load_job(store_db_t *db, void *userdata) {
        load_call_t *c = userdata;
        int r = load_verify(db, c);

        /* Never trusted, never kept: the client re-prepares with the model,
         * which writes a fresh entry. */
        if (r == -EBADMSG || r == -ESTALE)
                (void) store_cache_remove(db, c->key);
        return r;
}

int daemon_cache_load(const char *key, daemon_cache_record_t *ret, char *err, size_t err_size) {
        store_thread_t *t = daemon_storage_thread();
        char why[768] = "";
        load_call_t c = { .key = key, .err = why, .err_size = sizeof(why) };
        int r;

        if (!key || !ret)
                return -EINVAL;
        if (!t) {
                (void) snprintf(err, err_size, "the daemon has no compilation cache (no state directory)");
                return -ENODEV;
        }
        r = store_thread_call(t, load_job, &c);
        if (r == 0) {
                *ret = c.rec;
                return 0;
        }
        daemon_cache_record_done(&c.rec);
        if (!why[0])
                (void) snprintf(why, sizeof(why), "%s", strerror(-r));
        switch (r) {
        case -ENOENT:
                (void) snprintf(err, err_size, "no cache entry for this token: prepare with the model first");
                break;
        case -EBADMSG:
                (void) snprintf(err, err_size, "cache entry for this token is corrupt and was removed: %s; "
                                "prepare with the model to rebuild it", why);
                break;
        case -ESTALE:
                (void) snprintf(err, err_size, "cache entry for this token is stale and was removed: %s; "
                                "prepare with the model to rebuild it", why);
                break;
        default:
                (void) snprintf(err, err_size, "cannot load the cache entry: %s", why);
                break;
        }
        return r;
}
