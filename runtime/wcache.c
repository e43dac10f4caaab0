/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The weights cache (wcache.h): one file per key in a directory, mapped
 * read-only and shared.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "cleanup.h"
#include "sha256.h"
#include "wcache.h"

#define WC_MAGIC "ACWCACH1"
#define WC_SUFFIX ".acw"
#define WC_TMP_PREFIX ".tmp-"
/* A temporary file this old was left by a writer that died. */
#define WC_TMP_STALE_S 600
/* The key file beside the directory: "<dir>" WC_KEY_SUFFIX. */
#define WC_KEY_SUFFIX ".key"
#define WC_KEY_SIZE 32u
#define WC_TAG_SIZE 32u

typedef struct wc_header {
        char magic[8];
        uint32_t format;
        uint32_t header_size;
        uint64_t payload_size;
        uint64_t payload_hash;
        uint32_t key_len;
        uint32_t reserved;
        /* HMAC-SHA256 under the writer's key of this header (tag zeroed)
         * and the payload. */
        uint8_t tag[WC_TAG_SIZE];
        char key[RT_WCACHE_KEY_MAX];
} wc_header_t;

_Static_assert(sizeof(wc_header_t) <= RT_WCACHE_HEADER_SIZE, "header too big");

struct rt_wcache_blob {
        rt_wcache_t *cache;             /* NULL once the cache is closed */
        unsigned n_ref;                 /* under blobs_mu */
        char *key;                      /* full key */
        char file[64];
        void *map;
        size_t map_size;
        rt_wcache_blob_t *next;
};

struct rt_wcache {
        char *dir;
        int dir_fd;
        bool readonly;                  /* rt_wcache_open_readonly() */
        uint8_t key[WC_KEY_SIZE];       /* the writer's; unset when readonly */
        uint64_t quota;
        rt_wcache_stats_t stats;        /* under blobs_mu */
        rt_wcache_blob_t *blobs;        /* mapped now; under blobs_mu */
};

/* One lock for every cache's table and every blob's count: lookups are
 * rare (prepare time) and short. */
static pthread_mutex_t blobs_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- hashing ---- */

#define K2 0xc2b2ae3d27d4eb4full
#define K3 0x165667b19e3779f9ull

/* XXH3 (Debian's libxxhash): checks a 100 MB file in a few milliseconds
 * per core; it detects damage, not attacks: anyone who can write a file
 * can recompute it. Readers (driver hosts, benchmark workers) check it. */
static uint64_t hash64(const void *data, size_t size, uint64_t seed) {
        return XXH3_64bits_withSeed(data, size, seed);
}

/* HMAC-SHA256 (RFC 2104) of the header with its tag zeroed, then the
 * payload: what the writer checks, so that a file it did not write (a
 * payload changed and its XXH3 recomputed) is a miss, never a hit. */
static void tag_compute(const uint8_t key[WC_KEY_SIZE], const wc_header_t *h, const void *payload, size_t size,
                        uint8_t ret[WC_TAG_SIZE]) {
        uint8_t pad[64], inner[32];
        wc_header_t copy = *h;
        acc_sha256_t ctx;

        memset(copy.tag, 0, sizeof(copy.tag));
        memset(pad, 0x36, sizeof(pad));
        for (size_t i = 0; i < WC_KEY_SIZE; i++)
                pad[i] ^= key[i];
        acc_sha256_init(&ctx);
        acc_sha256_update(&ctx, pad, sizeof(pad));
        acc_sha256_update(&ctx, &copy, sizeof(copy));
        acc_sha256_update(&ctx, payload, size);
        acc_sha256_final(&ctx, inner);
        memset(pad, 0x5c, sizeof(pad));
        for (size_t i = 0; i < WC_KEY_SIZE; i++)
                pad[i] ^= key[i];
        acc_sha256_init(&ctx);
        acc_sha256_update(&ctx, pad, sizeof(pad));
        acc_sha256_update(&ctx, inner, sizeof(inner));
        acc_sha256_final(&ctx, ret);
}

/* Constant time: the comparison must not tell how much of a guess was right. */
static bool tag_equal(const uint8_t *a, const uint8_t *b) {
        uint8_t d = 0;
        for (size_t i = 0; i < WC_TAG_SIZE; i++)
                d |= a[i] ^ b[i];
        return d == 0;
}

/* ---- keys ---- */

static char build_id[128];

static void build_id_make(void) {
        char cpu[64] = "";
#if defined(__x86_64__) || defined(__i386__)
        __builtin_cpu_init();
        snprintf(cpu, sizeof(cpu), "x86%s%s%s%s%s", __builtin_cpu_supports("avx") ? "+avx" : "",
                 __builtin_cpu_supports("avx2") ? "+avx2" : "", __builtin_cpu_supports("fma") ? "+fma" : "",
                 __builtin_cpu_supports("f16c") ? "+f16c" : "",
                 __builtin_cpu_supports("avx512f") ? "+avx512f" : "");
#elif defined(__aarch64__)
        snprintf(cpu, sizeof(cpu), "arm64");
#else
        snprintf(cpu, sizeof(cpu), "generic");
#endif
        snprintf(build_id, sizeof(build_id), "rt=%s;cpu=%s", ACCELD_VERSION, cpu);
}

const char *rt_wcache_build_id(void) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;
        pthread_once(&once, build_id_make);
        return build_id;
}

static int full_key(const char *key, char *buf, size_t size) {
        if (!key || !*key)
                return -EINVAL;
        int n = snprintf(buf, size, "%s|%s", key, rt_wcache_build_id());
        return n < 0 || (size_t) n >= size ? -EINVAL : 0;
}

static void file_name(const char *fkey, char buf[64]) {
        snprintf(buf, 64, "%016llx" WC_SUFFIX, (unsigned long long) hash64(fkey, strlen(fkey), K3));
}

/* ---- open/close ---- */

static int write_all(int fd, const void *data, size_t size, off_t off);
static int write_key(int fd, const uint8_t key[WC_KEY_SIZE]);

/* The key is usable only if it is a regular file of ours, of the right
 * size, that nobody else may read or write. */
static int key_read(const char *path, uint8_t key[WC_KEY_SIZE]) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) || st.st_size != WC_KEY_SIZE)
                return -EPERM;
        return pread(fd, key, WC_KEY_SIZE, 0) == (ssize_t) WC_KEY_SIZE ? 0 : -EIO;
}

/* Read the key beside `dir`, or make a new one (a new key makes every
 * existing file a miss, which is always safe). */
static int key_load(const char *dir, uint8_t key[WC_KEY_SIZE]) {
        char path[4096], tmp[4128];
        size_t n = strlen(dir);
        int r;

        /* Beside the directory, never in it ("w/" is "w"). */
        while (n > 1 && dir[n - 1] == '/')
                n--;
        if (snprintf(path, sizeof(path), "%.*s" WC_KEY_SUFFIX, (int) n, dir) >= (int) sizeof(path))
                return -ENAMETOOLONG;
        r = key_read(path, key);
        if (r != -ENOENT && r != -EPERM && r != -EIO)
                return r;
        if (r != -ENOENT)
                (void) unlink(path);
        if (getrandom(key, WC_KEY_SIZE, 0) != (ssize_t) WC_KEY_SIZE)
                return -EIO;
        (void) snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long) getpid());
        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        r = write_key(fd, key);
        if (r == 0 && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        /* Another writer made it first: use its key. */
        return r == -EEXIST ? key_read(path, key) : r;
}

static int cache_new(const char *dir, uint64_t quota, bool readonly, rt_wcache_t **ret) {
        if (!dir || !*dir || !ret)
                return -EINVAL;
        if (!readonly && mkdir(dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        _cleanup_free_ rt_wcache_t *c = calloc(1, sizeof(*c));
        if (!c || !(c->dir = strdup(dir)))
                return -ENOMEM;
        if (!readonly) {
                int r = key_load(dir, c->key);
                if (r < 0) {
                        free(c->dir);
                        return r;
                }
        }
        c->readonly = readonly;
        c->dir_fd = fd;
        fd = -1;
        c->quota = quota;
        c->stats.quota = quota;
        *ret = c;
        c = NULL;
        return 0;
}

int rt_wcache_open(const char *dir, uint64_t quota, rt_wcache_t **ret) {
        return cache_new(dir, quota, false, ret);
}

int rt_wcache_open_readonly(const char *dir, rt_wcache_t **ret) {
        return cache_new(dir, 0, true, ret);
}

rt_wcache_t *rt_wcache_close(rt_wcache_t *c) {
        if (!c)
                return NULL;
        pthread_mutex_lock(&blobs_mu);
        for (rt_wcache_blob_t *b = c->blobs; b; b = b->next)
                b->cache = NULL;
        c->blobs = NULL;
        pthread_mutex_unlock(&blobs_mu);
        close(c->dir_fd);
        free(c->dir);
        free(c);
        return NULL;
}

const char *rt_wcache_dir(const rt_wcache_t *c) {
        return c ? c->dir : NULL;
}

/* ---- blobs ---- */

static rt_wcache_blob_t *table_find(rt_wcache_t *c, const char *fkey) {
        for (rt_wcache_blob_t *b = c->blobs; b; b = b->next)
                if (strcmp(b->key, fkey) == 0)
                        return b;
        return NULL;
}

static bool table_has_file(rt_wcache_t *c, const char *file) {
        for (rt_wcache_blob_t *b = c->blobs; b; b = b->next)
                if (strcmp(b->file, file) == 0)
                        return true;
        return false;
}

static void blob_destroy(rt_wcache_blob_t *b) {
        if (b->map)
                munmap(b->map, b->map_size);
        free(b->key);
        free(b);
}

/* Add b to c's table, or drop b for an equal blob already there (another
 * thread won). Returns the blob to use, referenced. Under blobs_mu. */
static rt_wcache_blob_t *table_add_locked(rt_wcache_t *c, rt_wcache_blob_t *b) {
        rt_wcache_blob_t *old = table_find(c, b->key);
        if (old) {
                old->n_ref++;
                blob_destroy(b);
                return old;
        }
        b->cache = c;
        b->n_ref = 1;
        b->next = c->blobs;
        c->blobs = b;
        c->stats.mapped_bytes += b->map_size;
        return b;
}

const void *rt_wcache_blob_data(const rt_wcache_blob_t *b, size_t *ret_size) {
        if (!b)
                return NULL;
        if (ret_size)
                *ret_size = b->map_size - RT_WCACHE_HEADER_SIZE;
        return (const uint8_t *) b->map + RT_WCACHE_HEADER_SIZE;
}

rt_wcache_blob_t *rt_wcache_blob_ref(rt_wcache_blob_t *b) {
        if (b) {
                pthread_mutex_lock(&blobs_mu);
                b->n_ref++;
                pthread_mutex_unlock(&blobs_mu);
        }
        return b;
}

rt_wcache_blob_t *rt_wcache_blob_unref(rt_wcache_blob_t *b) {
        if (!b)
                return NULL;
        pthread_mutex_lock(&blobs_mu);
        bool last = --b->n_ref == 0;
        if (last && b->cache) {
                rt_wcache_t *c = b->cache;
                for (rt_wcache_blob_t **p = &c->blobs; *p; p = &(*p)->next)
                        if (*p == b) {
                                *p = b->next;
                                break;
                        }
                c->stats.mapped_bytes -= b->map_size;
        }
        pthread_mutex_unlock(&blobs_mu);
        if (last)
                blob_destroy(b);
        return NULL;
}

/* ---- reading ---- */

/* Check the header of an open file against `fkey` (NULL: any key) and the
 * file size. 0 or -EBADMSG. */
static int header_check(const wc_header_t *h, uint64_t file_size, const char *fkey) {
        if (memcmp(h->magic, WC_MAGIC, 8) != 0 || h->format != RT_WCACHE_FORMAT ||
            h->header_size != RT_WCACHE_HEADER_SIZE || h->key_len == 0 || h->key_len >= RT_WCACHE_KEY_MAX ||
            h->key[h->key_len] != 0 || strlen(h->key) != h->key_len)
                return -EBADMSG;
        if (file_size < RT_WCACHE_HEADER_SIZE || h->payload_size != file_size - RT_WCACHE_HEADER_SIZE)
                return -EBADMSG;
        if (fkey && strcmp(h->key, fkey) != 0)
                return -EBADMSG;
        return 0;
}

/* Map `file` and check it completely. 0 with *ret (unreferenced, not in a
 * table), -ENOENT, -EBADMSG (the caller removes it), -errno. */
static int blob_map(rt_wcache_t *c, const char *file, const char *fkey, rt_wcache_blob_t **ret) {
        _cleanup_close_ int fd = openat(c->dir_fd, file, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((uint64_t) st.st_size < RT_WCACHE_HEADER_SIZE)
                return -EBADMSG;
        void *map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED)
                return -errno;
        const wc_header_t *h = map;
        const uint8_t *payload = (const uint8_t *) map + RT_WCACHE_HEADER_SIZE;
        int r = header_check(h, (uint64_t) st.st_size, fkey);
        if (r == 0 && c->readonly && hash64(payload, h->payload_size, K2) != h->payload_hash)
                r = -EBADMSG;
        if (r == 0 && !c->readonly) {
                uint8_t tag[WC_TAG_SIZE];
                tag_compute(c->key, h, payload, h->payload_size, tag);
                if (!tag_equal(tag, h->tag))
                        r = -EBADMSG;
        }
        if (r < 0) {
                munmap(map, (size_t) st.st_size);
                return r;
        }
        rt_wcache_blob_t *b = calloc(1, sizeof(*b));
        if (!b || !(b->key = strdup(fkey))) {
                free(b);
                munmap(map, (size_t) st.st_size);
                return -ENOMEM;
        }
        snprintf(b->file, sizeof(b->file), "%s", file);
        b->map = map;
        b->map_size = (size_t) st.st_size;
        /* The mtime is the LRU clock (the writer's). */
        if (!c->readonly)
                (void) futimens(fd, NULL);
        *ret = b;
        return 0;
}

int rt_wcache_lookup(rt_wcache_t *c, const char *key, rt_wcache_blob_t **ret) {
        if (!c || !ret)
                return -EINVAL;
        char fkey[RT_WCACHE_KEY_MAX];
        int r = full_key(key, fkey, sizeof(fkey));
        if (r < 0)
                return r;
        pthread_mutex_lock(&blobs_mu);
        rt_wcache_blob_t *b = table_find(c, fkey);
        if (b) {
                b->n_ref++;
                c->stats.hits++;
        }
        pthread_mutex_unlock(&blobs_mu);
        if (b) {
                *ret = b;
                return 0;
        }
        char file[64];
        file_name(fkey, file);
        r = blob_map(c, file, fkey, &b);
        pthread_mutex_lock(&blobs_mu);
        if (r == -EBADMSG) {
                if (!c->readonly)
                        (void) unlinkat(c->dir_fd, file, 0);
                c->stats.corrupt++;
        }
        if (r < 0) {
                c->stats.misses++;
                pthread_mutex_unlock(&blobs_mu);
                return r == -EBADMSG ? -ENOENT : r;
        }
        c->stats.hits++;
        *ret = table_add_locked(c, b);
        pthread_mutex_unlock(&blobs_mu);
        return 0;
}

/* ---- writing ---- */

static int write_key(int fd, const uint8_t key[WC_KEY_SIZE]) {
        int r = write_all(fd, key, WC_KEY_SIZE, 0);
        return r == 0 && fsync(fd) < 0 ? -errno : r;
}

static int write_all(int fd, const void *data, size_t size, off_t off) {
        const uint8_t *p = data;
        while (size > 0) {
                ssize_t n = pwrite(fd, p, size, off);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += n;
                size -= (size_t) n;
                off += n;
        }
        return 0;
}

typedef struct scan_item {
        char name[64];
        uint64_t bytes;
        int64_t mtime;
} scan_item_t;

static int item_cmp(const void *a, const void *b) {
        const scan_item_t *x = a, *y = b;
        if (x->mtime != y->mtime)
                return x->mtime < y->mtime ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* The cache files (oldest first), removing temporary files a dead writer
 * left. */
static int dir_scan(rt_wcache_t *c, scan_item_t **ret, size_t *ret_n, uint64_t *ret_bytes) {
        int fd = openat(c->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                int e = -errno;
                close(fd);
                return e;
        }
        scan_item_t *v = NULL;
        size_t n = 0, cap = 0;
        uint64_t total = 0;
        time_t now = time(NULL);
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                bool tmp = strncmp(de->d_name, WC_TMP_PREFIX, strlen(WC_TMP_PREFIX)) == 0;
                size_t len = strlen(de->d_name);
                bool ours = len > strlen(WC_SUFFIX) && len < 64 &&
                            strcmp(de->d_name + len - strlen(WC_SUFFIX), WC_SUFFIX) == 0;
                if ((!tmp && !ours) || fstatat(c->dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                if (tmp) {
                        if (now - st.st_mtime > WC_TMP_STALE_S)
                                (void) unlinkat(c->dir_fd, de->d_name, 0);
                        continue;
                }
                if (n == cap) {
                        size_t ncap = cap ? 2 * cap : 32;
                        scan_item_t *nv = realloc(v, ncap * sizeof(*v));
                        if (!nv) {
                                free(v);
                                closedir(d);
                                return -ENOMEM;
                        }
                        v = nv;
                        cap = ncap;
                }
                snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
                v[n].bytes = (uint64_t) st.st_size;
                v[n].mtime = (int64_t) st.st_mtime;
                total += v[n].bytes;
                n++;
        }
        closedir(d);
        if (n > 1)
                qsort(v, n, sizeof(*v), item_cmp);
        *ret = v;
        *ret_n = n;
        *ret_bytes = total;
        return 0;
}

/* Remove the oldest files nobody here maps until the directory fits the
 * quota; `keep` (the file just written) stays. */
static void quota_enforce(rt_wcache_t *c, const char *keep) {
        scan_item_t *v = NULL;
        size_t n = 0;
        uint64_t total = 0;
        if (dir_scan(c, &v, &n, &total) < 0)
                return;
        pthread_mutex_lock(&blobs_mu);
        for (size_t i = 0; i < n && c->quota && total > c->quota; i++) {
                if (strcmp(v[i].name, keep) == 0 || table_has_file(c, v[i].name))
                        continue;
                if (unlinkat(c->dir_fd, v[i].name, 0) == 0) {
                        total -= v[i].bytes;
                        c->stats.evictions++;
                        n--;
                        memmove(v + i, v + i + 1, (n - i) * sizeof(*v));
                        i--;
                }
        }
        c->stats.files = n;
        c->stats.bytes = total;
        pthread_mutex_unlock(&blobs_mu);
        free(v);
}

int rt_wcache_insert(rt_wcache_t *c, const char *key, const struct iovec *iov, int n, rt_wcache_blob_t **ret) {
        if (!c || !ret || n < 0 || (n > 0 && !iov))
                return -EINVAL;
        if (c->readonly)
                return -EROFS;
        char fkey[RT_WCACHE_KEY_MAX];
        int r = full_key(key, fkey, sizeof(fkey));
        if (r < 0)
                return r;
        uint64_t payload = 0;
        for (int i = 0; i < n; i++)
                payload += iov[i].iov_len;
        if (c->quota && payload + RT_WCACHE_HEADER_SIZE > c->quota)
                return -EDQUOT;
        char file[64], tmp[64];
        file_name(fkey, file);
        snprintf(tmp, sizeof(tmp), WC_TMP_PREFIX "%.16s-%ld", file, (long) getpid());
        _cleanup_close_ int fd = openat(c->dir_fd, tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        size_t total = RT_WCACHE_HEADER_SIZE + (size_t) payload;
        void *map = MAP_FAILED;
        off_t off = RT_WCACHE_HEADER_SIZE;
        for (int i = 0; i < n; i++) {
                if ((r = write_all(fd, iov[i].iov_base, iov[i].iov_len, off)) < 0)
                        goto fail;
                off += (off_t) iov[i].iov_len;
        }
        if (ftruncate(fd, (off_t) total) < 0) {
                r = -errno;
                goto fail;
        }
        /* Hash what the file holds, through the mapping we keep. */
        map = mmap(NULL, total, PROT_READ, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED) {
                r = -errno;
                goto fail;
        }
        wc_header_t h = { .format = RT_WCACHE_FORMAT, .header_size = RT_WCACHE_HEADER_SIZE, .payload_size = payload };
        memcpy(h.magic, WC_MAGIC, 8);
        h.key_len = (uint32_t) strlen(fkey);
        memcpy(h.key, fkey, h.key_len + 1);
        h.payload_hash = hash64((const uint8_t *) map + RT_WCACHE_HEADER_SIZE, payload, K2);
        tag_compute(c->key, &h, (const uint8_t *) map + RT_WCACHE_HEADER_SIZE, payload, h.tag);
        if ((r = write_all(fd, &h, sizeof(h), 0)) < 0)
                goto fail;
        if (fdatasync(fd) < 0 || renameat(c->dir_fd, tmp, c->dir_fd, file) < 0) {
                r = -errno;
                goto fail;
        }
        (void) fsync(c->dir_fd);
        rt_wcache_blob_t *b = calloc(1, sizeof(*b));
        if (!b || !(b->key = strdup(fkey))) {
                free(b);
                munmap(map, total);
                return -ENOMEM;
        }
        snprintf(b->file, sizeof(b->file), "%s", file);
        b->map = map;
        b->map_size = total;
        pthread_mutex_lock(&blobs_mu);
        c->stats.inserts++;
        *ret = table_add_locked(c, b);
        pthread_mutex_unlock(&blobs_mu);
        quota_enforce(c, file);
        return 0;
fail:
        if (map != MAP_FAILED)
                munmap(map, total);
        (void) unlinkat(c->dir_fd, tmp, 0);
        return r;
}

/* ---- inspection ---- */

void rt_wcache_stats(rt_wcache_t *c, rt_wcache_stats_t *ret) {
        *ret = (rt_wcache_stats_t) { 0 };
        if (!c)
                return;
        pthread_mutex_lock(&blobs_mu);
        *ret = c->stats;
        pthread_mutex_unlock(&blobs_mu);
}

int rt_wcache_list(rt_wcache_t *c, rt_wcache_entry_t **ret, size_t *ret_n) {
        if (!c || !ret || !ret_n)
                return -EINVAL;
        scan_item_t *v = NULL;
        size_t n = 0;
        uint64_t total = 0;
        int r = dir_scan(c, &v, &n, &total);
        if (r < 0)
                return r;
        rt_wcache_entry_t *e = calloc(n ? n : 1, sizeof(*e));
        if (!e) {
                free(v);
                return -ENOMEM;
        }
        pthread_mutex_lock(&blobs_mu);
        for (size_t i = 0; i < n; i++) {
                snprintf(e[i].file, sizeof(e[i].file), "%s", v[i].name);
                e[i].bytes = v[i].bytes;
                e[i].mtime = v[i].mtime;
                e[i].mapped = table_has_file(c, v[i].name);
        }
        c->stats.files = n;
        c->stats.bytes = total;
        pthread_mutex_unlock(&blobs_mu);
        free(v);
        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int fd = openat(c->dir_fd, e[i].file, O_RDONLY | O_CLOEXEC);
                wc_header_t h;
                if (fd >= 0 && pread(fd, &h, sizeof(h), 0) == (ssize_t) sizeof(h) &&
                    header_check(&h, e[i].bytes, NULL) == 0) {
                        e[i].valid = true;
                        snprintf(e[i].key, sizeof(e[i].key), "%s", h.key);
                }
        }
        *ret = e;
        *ret_n = n;
        return 0;
}

int rt_wcache_clear(rt_wcache_t *c, uint64_t *ret_removed, uint64_t *ret_bytes) {
        if (!c)
                return -EINVAL;
        if (c->readonly)
                return -EROFS;
        scan_item_t *v = NULL;
        size_t n = 0;
        uint64_t total = 0, removed = 0, bytes = 0;
        int r = dir_scan(c, &v, &n, &total);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (unlinkat(c->dir_fd, v[i].name, 0) == 0) {
                        removed++;
                        bytes += v[i].bytes;
                }
        free(v);
        pthread_mutex_lock(&blobs_mu);
        c->stats.files = n - removed;
        c->stats.bytes = total - bytes;
        pthread_mutex_unlock(&blobs_mu);
        if (ret_removed)
                *ret_removed = removed;
        if (ret_bytes)
                *ret_bytes = bytes;
        return 0;
}
