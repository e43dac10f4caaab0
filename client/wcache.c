/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel: the daemon's weights cache (ManageWeightsCache, GetStatus). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accel-internal.h"

void accel__weights_cache_status_copy(struct accel_weights_cache_status *out, const Acceld__WeightsCacheStatus *in) {
        *out = (struct accel_weights_cache_status) { 0 };
        out->directory = accel__strdup0(in ? in->directory : NULL);
        if (!in)
                return;
        out->hits = in->hits;
        out->misses = in->misses;
        out->inserts = in->inserts;
        out->corrupt = in->corrupt;
        out->evictions = in->evictions;
        out->files = in->files;
        out->bytes = in->bytes;
        out->mapped_bytes = in->mapped_bytes;
        out->quota_bytes = in->quota_bytes;
}

accel_weights_cache_t *accel_weights_cache_free(accel_weights_cache_t *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n_entries; i++) {
                free(w->entries[i].file);
                free(w->entries[i].key);
        }
        free(w->entries);
        free(w->status.directory);
        free(w);
        return NULL;
}

static int manage(accel_client_t *c, Acceld__WeightsCacheAction action, accel_weights_cache_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ManageWeightsCacheRequest body = ACCELD__MANAGE_WEIGHTS_CACHE_REQUEST__INIT;
        Acceld__Response *resp = NULL;
        const Acceld__ManageWeightsCacheResponse *m;
        accel_weights_cache_t *out;
        int r;

        accel__error_clear();
        if (!c || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_weights_cache: invalid argument");
        body.has_action = 1;
        body.action = action;
        req.body_case = ACCELD__REQUEST__BODY_MANAGE_WEIGHTS_CACHE;
        req.manage_weights_cache = &body;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_MANAGE_WEIGHTS_CACHE, &resp);
        if (r < 0)
                return r;
        m = resp->manage_weights_cache;
        out = calloc(1, sizeof(*out));
        if (out) {
                accel__weights_cache_status_copy(&out->status, m->status);
                out->entries = calloc(m->n_entries + 1, sizeof(*out->entries));
        }
        if (!out || !out->status.directory || !out->entries)
                goto oom;
        for (size_t i = 0; i < m->n_entries; i++) {
                accel_weights_cache_entry_t *e = &out->entries[i];
                e->file = accel__strdup0(m->entries[i]->file);
                e->key = accel__strdup0(m->entries[i]->key);
                out->n_entries = i + 1;
                if (!e->file || !e->key)
                        goto oom;
                e->bytes = m->entries[i]->bytes;
                e->last_used_unix = m->entries[i]->last_used_unix;
                e->mapped = m->entries[i]->mapped;
                e->valid = m->entries[i]->valid;
        }
        out->removed_files = m->removed_files;
        out->removed_bytes = m->removed_bytes;
        acceld__response__free_unpacked(resp, NULL);
        *ret = out;
        return 0;
oom:
        (void) accel_weights_cache_free(out);
        acceld__response__free_unpacked(resp, NULL);
        return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
}

int accel_weights_cache_list(accel_client_t *c, accel_weights_cache_t **ret) {
        return manage(c, ACCELD__WEIGHTS_CACHE_ACTION__WEIGHTS_CACHE_LIST, ret);
}

int accel_weights_cache_clear(accel_client_t *c, accel_weights_cache_t **ret) {
        return manage(c, ACCELD__WEIGHTS_CACHE_ACTION__WEIGHTS_CACHE_CLEAR, ret);
}
