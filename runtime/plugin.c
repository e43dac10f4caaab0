/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

int rt_plugin_load(const char *path, const rt_driver_t **ret, char *err, size_t err_size) {
        if (!path)
                return -EINVAL;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                snprintf(err, err_size, "plugin %s: %s", path, dlerror());
                return -ENOENT;
        }
        rt_driver_entry_t entry = (rt_driver_entry_t) dlsym(h, RT_DRIVER_ENTRY_SYMBOL);
        if (!entry) {
                snprintf(err, err_size, "plugin %s: no %s entry point", path, RT_DRIVER_ENTRY_SYMBOL);
                dlclose(h);
                return -ELIBBAD;
        }
        const rt_driver_t *d = entry(RT_DRIVER_ABI_VERSION);
        if (!d) {
                snprintf(err, err_size, "plugin %s: the entry point returned no driver", path);
                dlclose(h);
                return -ELIBBAD;
        }
        if (d->abi_version != RT_DRIVER_ABI_VERSION) {
                snprintf(err, err_size,
                         "plugin %s: driver ABI version %u, this runtime needs %u; refused (rebuild it against "
                         "<accel/driver.h> of this acceld)",
                         path, d->abi_version, RT_DRIVER_ABI_VERSION);
                dlclose(h);
                return -EPROTO;
        }
        int r = rt_driver_register(d);
        if (r < 0) {
                snprintf(err, err_size, "plugin %s: cannot register driver '%s': %s", path,
                         d->name ? d->name : "?", r == -EEXIST ? "a driver of that name exists" : strerror(-r));
                dlclose(h);
                return r;
        }
        /* The handle is deliberately kept: the driver lives in it. */
        if (ret)
                *ret = d;
        return 0;
}

int rt_plugin_load_dir(const char *dir, void (*cb)(void *user, const char *path, int error, const char *message),
                       void *user) {
        if (!dir)
                return -EINVAL;
        struct dirent **names = NULL;
        int n = scandir(dir, &names, NULL, alphasort);
        if (n < 0)
                return -errno;
        int loaded = 0;
        for (int i = 0; i < n; i++) {
                const char *name = names[i]->d_name;
                size_t len = strlen(name);
                if (len > 3 && strcmp(name + len - 3, ".so") == 0) {
                        char path[4096], err[512] = "";
                        snprintf(path, sizeof(path), "%s/%s", dir, name);
                        int r = rt_plugin_load(path, NULL, err, sizeof(err));
                        if (r == 0)
                                loaded++;
                        else if (cb)
                                cb(user, path, r, err);
                }
                free(names[i]);
        }
        free(names);
        return loaded;
}
