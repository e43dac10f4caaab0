/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "driver.h"

#define MAX_DRIVERS 32

typedef struct entry {
        const rt_driver_t *d;
        bool have_caps;
        int caps_err;
        rt_driver_caps_t caps;
} entry_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t drivers[MAX_DRIVERS];
static size_t n_drivers;
static bool builtins_done;

static int add_locked(const rt_driver_t *d) {
        /* The version first: it and the name are the only fields every ABI
         * version has in the same place. The plugin loader says why. */
        if (!d)
                return -EINVAL;
        if (d->abi_version != RT_DRIVER_ABI_VERSION)
                return -EPROTO;
        if (!d->name || !d->name[0] || !d->supported_ops || !d->prepare || !d->execute || !d->release)
                return -EINVAL;
        for (size_t i = 0; i < n_drivers; i++)
                if (strcasecmp(drivers[i].d->name, d->name) == 0)
                        return -EEXIST;
        if (n_drivers == MAX_DRIVERS)
                return -ENOMEM;
        drivers[n_drivers++] = (entry_t) { .d = d };
        return 0;
}

static void builtins_locked(void) {
        if (builtins_done)
                return;
        builtins_done = true;
        (void) add_locked(rt_driver_reference());
        if (rt_driver_xnnpack())
                (void) add_locked(rt_driver_xnnpack());
}

int rt_driver_register(const rt_driver_t *d) {
        pthread_mutex_lock(&lock);
        builtins_locked();
        int r = add_locked(d);
        pthread_mutex_unlock(&lock);
        return r;
}

int rt_driver_unregister(const char *name) {
        if (!name)
                return -EINVAL;
        int r = -ENOENT;
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < n_drivers; i++)
                if (strcasecmp(drivers[i].d->name, name) == 0) {
                        memmove(&drivers[i], &drivers[i + 1], (n_drivers - i - 1) * sizeof(drivers[0]));
                        n_drivers--;
                        r = 0;
                        break;
                }
        pthread_mutex_unlock(&lock);
        return r;
}

const rt_driver_t *rt_driver_find(const char *name) {
        if (!name)
                return NULL;
        const rt_driver_t *d = NULL;
        pthread_mutex_lock(&lock);
        builtins_locked();
        for (size_t i = 0; i < n_drivers; i++)
                if (strcasecmp(drivers[i].d->name, name) == 0) {
                        d = drivers[i].d;
                        break;
                }
        pthread_mutex_unlock(&lock);
        return d;
}

size_t rt_driver_count(void) {
        pthread_mutex_lock(&lock);
        builtins_locked();
        size_t n = n_drivers;
        pthread_mutex_unlock(&lock);
        return n;
}

const rt_driver_t *rt_driver_get(size_t i) {
        pthread_mutex_lock(&lock);
        builtins_locked();
        const rt_driver_t *d = i < n_drivers ? drivers[i].d : NULL;
        pthread_mutex_unlock(&lock);
        return d;
}

int rt_driver_capabilities(const rt_driver_t *d, rt_driver_caps_t *ret) {
        if (!d || !ret)
                return -EINVAL;
        pthread_mutex_lock(&lock);
        builtins_locked();
        entry_t *e = NULL;
        for (size_t i = 0; i < n_drivers; i++)
                if (drivers[i].d == d)
                        e = &drivers[i];
        if (!e) {
                pthread_mutex_unlock(&lock);
                return -ENOENT;
        }
        if (!e->have_caps) {
                /* Calibration runs under the lock: it is short, happens once,
                 * and two drivers measured at once would disturb each other. */
                rt_driver_caps_t caps = { 0 };
                int r = 0;
                if (d->calibrate)
                        r = d->calibrate(d, &caps);
                else
                        for (int t = 0; t < _RT_TYPE_MAX; t++)
                                caps.operand[t] = (rt_driver_perf_t) { 1.0f, 1.0f };
                e->caps = caps;
                e->caps_err = r < 0 ? r : 0;
                e->have_caps = true;
        }
        int r = e->caps_err;
        if (r == 0)
                *ret = e->caps;
        pthread_mutex_unlock(&lock);
        return r;
}

void rt_driver_capabilities_reset(void) {
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < n_drivers; i++)
                drivers[i].have_caps = false;
        pthread_mutex_unlock(&lock);
}
