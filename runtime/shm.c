/* SPDX-License-Identifier: Apache-2.0 */
/* The shared-memory registry (shm.h): regions sorted by address. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shm.h"

typedef struct region {
        uintptr_t base;
        size_t size;
        int fd;
        bool owned;             /* rt_shm_alloc(): the registry closes fd */
        uint64_t fd_offset;
        uint64_t id;
} region_t;

static struct {
        pthread_rwlock_t lock;
        region_t *v;            /* sorted by base; no two overlap */
        size_t n, cap;
        uint64_t next_id;
        _Atomic uint64_t removed;       /* rt_shm_epoch() */
} reg = { .lock = PTHREAD_RWLOCK_INITIALIZER };

/* Index of the first region whose base is above `a`. */
static size_t upper(uintptr_t a) {
        size_t lo = 0, hi = reg.n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (reg.v[mid].base <= a)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static int64_t region_add(void *base, size_t size, int fd, uint64_t fd_offset, bool owned) {
        uintptr_t b = (uintptr_t) base;
        int64_t id;

        if (!base || !size || fd < 0 || b + size < b)
                return -EINVAL;
        pthread_rwlock_wrlock(&reg.lock);
        size_t at = upper(b);
        if ((at > 0 && reg.v[at - 1].base + reg.v[at - 1].size > b) || (at < reg.n && reg.v[at].base < b + size)) {
                pthread_rwlock_unlock(&reg.lock);
                return -EINVAL;
        }
        if (reg.n == reg.cap) {
                size_t cap = reg.cap ? reg.cap * 2 : 16;
                region_t *v = realloc(reg.v, cap * sizeof(*v));
                if (!v) {
                        pthread_rwlock_unlock(&reg.lock);
                        return -ENOMEM;
                }
                reg.v = v;
                reg.cap = cap;
        }
        memmove(&reg.v[at + 1], &reg.v[at], (reg.n - at) * sizeof(*reg.v));
        id = (int64_t) ++reg.next_id;
        reg.v[at] = (region_t) { b, size, fd, owned, fd_offset, (uint64_t) id };
        reg.n++;
        pthread_rwlock_unlock(&reg.lock);
        return id;
}

int64_t rt_shm_register(void *base, size_t size, int fd, uint64_t fd_offset) {
        return region_add(base, size, fd, fd_offset, false);
}

/* Remove region `id`; its fd when the registry owns it, else -1. */
static int region_remove(uint64_t id) {
        int fd = -1;

        if (!id)
                return -1;
        pthread_rwlock_wrlock(&reg.lock);
        for (size_t i = 0; i < reg.n; i++)
                if (reg.v[i].id == id) {
                        if (reg.v[i].owned)
                                fd = reg.v[i].fd;
                        memmove(&reg.v[i], &reg.v[i + 1], (reg.n - i - 1) * sizeof(*reg.v));
                        reg.n--;
                        atomic_fetch_add(&reg.removed, 1);
                        break;
                }
        pthread_rwlock_unlock(&reg.lock);
        return fd;
}

void rt_shm_unregister(uint64_t id) {
        int fd = region_remove(id);
        if (fd >= 0)
                (void) close(fd);
}

uint64_t rt_shm_epoch(void) {
        return atomic_load(&reg.removed);
}

bool rt_shm_alive(uint64_t id) {
        bool alive = false;

        pthread_rwlock_rdlock(&reg.lock);
        for (size_t i = 0; i < reg.n && !alive; i++)
                alive = reg.v[i].id == id;
        pthread_rwlock_unlock(&reg.lock);
        return alive;
}

int rt_shm_find(const void *p, size_t bytes, rt_shm_ref_t *ret) {
        uintptr_t a = (uintptr_t) p;
        int r = -ENOENT;

        if (!p || !ret)
                return -ENOENT;
        pthread_rwlock_rdlock(&reg.lock);
        size_t at = upper(a);
        if (at > 0) {
                const region_t *g = &reg.v[at - 1];
                size_t off = a - g->base;
                if (off < g->size && bytes <= g->size - off) {
                        *ret = (rt_shm_ref_t) { g->id, g->fd, g->fd_offset + off, g->size - off };
                        r = 0;
                }
        }
        pthread_rwlock_unlock(&reg.lock);
        return r;
}

void *rt_shm_alloc(size_t size, const char *name, uint64_t *ret_id) {
        int fd = memfd_create(name ? name : "acceld-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        void *p;
        int64_t id;

        if (fd < 0)
                return NULL;
        /* Sealed at its size before any other process sees it: a driver
         * host that shrank it would kill acceld with SIGBUS. */
        if (!size || ftruncate(fd, (off_t) size) < 0 ||
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
                int e = size ? errno : EINVAL;
                (void) close(fd);
                errno = e;
                return NULL;
        }
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
                int e = errno;
                (void) close(fd);
                errno = e;
                return NULL;
        }
        id = region_add(p, size, fd, 0, true);
        if (id < 0) {
                (void) munmap(p, size);
                (void) close(fd);
                errno = (int) -id;
                return NULL;
        }
        *ret_id = (uint64_t) id;
        return p;
}

void rt_shm_free(void *p, size_t size, uint64_t id) {
        if (!p)
                return;
        rt_shm_unregister(id);
        (void) munmap(p, size);
}
