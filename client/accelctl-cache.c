/* SPDX-License-Identifier: Apache-2.0 */
/* accelctl cache: list or clear acceld's weights cache. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "accelctl.h"

static const char cache_usage[] =
        "Usage: accelctl [--socket PATH] cache [list|clear] [--json]\n"
        "List the files of acceld's weights cache (folded weights shared by every instance,\n"
        "worker and driver host) with their sizes and last use, or remove them all.\n"
        "Root and the operators group only; `accelctl status` shows the counters to everyone.\n";

json_object *accelctl_weights_cache_json(const struct accel_weights_cache_status *w) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "directory", json_object_new_string(w->directory ? w->directory : ""));
        json_object_object_add(o, "hits", json_object_new_uint64(w->hits));
        json_object_object_add(o, "misses", json_object_new_uint64(w->misses));
        json_object_object_add(o, "inserts", json_object_new_uint64(w->inserts));
        json_object_object_add(o, "corrupt", json_object_new_uint64(w->corrupt));
        json_object_object_add(o, "evictions", json_object_new_uint64(w->evictions));
        json_object_object_add(o, "files", json_object_new_uint64(w->files));
        json_object_object_add(o, "bytes", json_object_new_uint64(w->bytes));
        json_object_object_add(o, "mapped_bytes", json_object_new_uint64(w->mapped_bytes));
        json_object_object_add(o, "quota_bytes", json_object_new_uint64(w->quota_bytes));
        return o;
}

static int cache_json(const accel_weights_cache_t *w, bool clear) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "weights_cache", accelctl_weights_cache_json(&w->status));
        if (clear) {
                json_object_object_add(o, "removed_files", json_object_new_uint64(w->removed_files));
                json_object_object_add(o, "removed_bytes", json_object_new_uint64(w->removed_bytes));
        } else {
                json_object *a = json_object_new_array();
                for (size_t i = 0; i < w->n_entries; i++) {
                        const accel_weights_cache_entry_t *e = &w->entries[i];
                        json_object *eo = json_object_new_object();
                        json_object_object_add(eo, "file", json_object_new_string(e->file));
                        json_object_object_add(eo, "key", json_object_new_string(e->key));
                        json_object_object_add(eo, "bytes", json_object_new_uint64(e->bytes));
                        json_object_object_add(eo, "last_used_unix", json_object_new_int64(e->last_used_unix));
                        json_object_object_add(eo, "mapped", json_object_new_boolean(e->mapped));
                        json_object_object_add(eo, "valid", json_object_new_boolean(e->valid));
                        json_object_array_add(a, eo);
                }
                json_object_object_add(o, "entries", a);
        }
        return accelctl_json_print(o);
}

static int cache_table(const accel_weights_cache_t *w) {
        static const char *const header[] = { "FILE", "SIZE", "LAST USED", "IN USE", "KEY" };
        const struct accel_weights_cache_status *s = &w->status;
        char bytes[48], quota[48];
        accelctl_table_t t;
        int r = 0;

        (void) accelctl_format_bytes(s->bytes, bytes, sizeof(bytes));
        if (s->quota_bytes)
                (void) accelctl_format_bytes(s->quota_bytes, quota, sizeof(quota));
        else
                (void) snprintf(quota, sizeof(quota), "unlimited");
        printf("%s: %" PRIu64 " files, %s of %s; %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64
               " evicted, %" PRIu64 " corrupt since start\n\n",
               s->directory, s->files, bytes, quota, s->hits, s->misses, s->evictions, s->corrupt);
        accelctl_table_init(&t, 5, header);
        for (size_t i = 0; i < w->n_entries && r == 0; i++) {
                const accel_weights_cache_entry_t *e = &w->entries[i];
                char size[48], when[32];
                time_t tt = (time_t) e->last_used_unix;
                struct tm tm;
                (void) accelctl_format_bytes(e->bytes, size, sizeof(size));
                if (!localtime_r(&tt, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
                        (void) snprintf(when, sizeof(when), "?");
                const char *row[] = { e->file, size, when, e->mapped ? "yes" : "no",
                                      e->valid ? e->key : "(damaged: removed at its next use)" };
                r = accelctl_table_add(&t, row);
        }
        if (r == 0)
                accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        return r;
}

int accelctl_cache(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        accel_client_t *c = NULL;
        accel_weights_cache_t *w = NULL;
        bool clear = false;
        int r;

        if (argc > 1 && (strcmp(argv[1], "list") == 0 || strcmp(argv[1], "clear") == 0)) {
                clear = strcmp(argv[1], "clear") == 0;
                argv[1] = argv[0];
                argc--;
                argv++;
        }
        r = accelctl_parse_common(argc, argv, &o, cache_usage);
        if (r != 0)
                return r > 0 ? 0 : 2;
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        r = clear ? accel_weights_cache_clear(c, &w) : accel_weights_cache_list(c, &w);
        if (r < 0) {
                fprintf(stderr, "accelctl: cache %s: %s\n", clear ? "clear" : "list", accel_last_error());
                accel_disconnect(c);
                return 1;
        }
        if (o.json)
                r = cache_json(w, clear);
        else if (clear) {
                char bytes[48];
                (void) accelctl_format_bytes(w->removed_bytes, bytes, sizeof(bytes));
                printf("removed %" PRIu64 " files (%s) from %s\n", w->removed_files, bytes, w->status.directory);
        } else
                r = cache_table(w);
        accel_weights_cache_free(w);
        accel_disconnect(c);
        return r < 0 ? 1 : 0;
}
