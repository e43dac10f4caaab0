/* SPDX-License-Identifier: Apache-2.0 */
/* The shared model table and compiled instances with their interpreter pools. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cleanup.h"
#include "clientfd.h"
#include "models.h"
#include "host.h"
#include "quarantine.h"

void (*daemon_models_options_hook)(rt_interp_options_t *o) = NULL;

int daemon_models_init(daemon_models_t *t, size_t max_model_bytes, unsigned instance_concurrency) {
        int r;

        *t = (daemon_models_t) {
                .max_model_bytes = max_model_bytes,
                .instance_concurrency = instance_concurrency ? instance_concurrency : 1,
        };
        t->releases_tail = &t->releases;
        r = -pthread_mutex_init(&t->mu, NULL);
        if (r == 0)
                r = -pthread_mutex_init(&t->release_mu, NULL);
        if (r == 0)
                r = -pthread_cond_init(&t->release_cond, NULL);
        return r;
}

int daemon_settings_store_key(const rt_settings_t *s, char **ret) {
        _cleanup_free_ uint8_t *b = NULL;
        size_t n = 0;
        int r;

        r = rt_settings_pack(s, &b, &n);
        if (r < 0)
                return r;
        r = store_settings_key_from_bytes(b, n, ret);
        return r == -EBADMSG ? -EIO : r;
}

void daemon_tensor_info_done(daemon_tensor_info_t *info) {
        if (!info)
                return;
        free(info->name);
        free(info->scale);
        free(info->zero_point);
        *info = (daemon_tensor_info_t) {};
}

int daemon_tensor_info_from(daemon_tensor_info_t *info, const rt_tensor_t *t) {
        *info = (daemon_tensor_info_t) {
                .type = t->type,
                .rank = t->rank,
                .axis = t->quant.axis,
        };
        memcpy(info->dims, t->dims, sizeof(info->dims));
        info->bytes = t->type == RT_TYPE_STRING ? t->bytes : rt_tensor_count(t) * rt_type_size(t->type);
        info->name = strdup(t->name ? t->name : "");
        if (!info->name)
                return -ENOMEM;
        if (t->quant.n > 0 && t->quant.scale) {
                info->scale = malloc(t->quant.n * sizeof(float));
                info->zero_point = calloc(t->quant.n, sizeof(int64_t));
                if (!info->scale || !info->zero_point) {
                        daemon_tensor_info_done(info);
                        return -ENOMEM;
                }
                memcpy(info->scale, t->quant.scale, t->quant.n * sizeof(float));
                if (t->quant.zero_point)
                        memcpy(info->zero_point, t->quant.zero_point, t->quant.n * sizeof(int64_t));
                info->n_quant = t->quant.n;
        }
        return 0;
}

/* ---- models ---- */

static void model_free(daemon_model_t *m) {
        if (!m)
                return;
        rt_model_free(m->rt);
        if (m->map)
                (void) munmap(m->map, m->map_size);
        free(m->copy);
        free(m->name);
        free(m);
}

static daemon_model_t *model_find_locked(daemon_models_t *t, const char *sha) {
        for (daemon_model_t *m = t->models; m; m = m->next)
                if (strcasecmp(m->sha256, sha) == 0)
                        return m;
        return NULL;
}

/*
 * Look at the bytes of `src` and hash them: an fd is taken through
 * daemon_clientfd_model() (a memfd that can neither shrink nor change,
 * the client's own or acceld's sealed copy) and mapped read-only; inline
 * bytes are used where they are. *ret gets a new, unlinked daemon_model_t
 * whose inline bytes are borrowed (view, view_size) until model_bytes_own()
 * is called; model_free() drops the mapping.
 */
static int model_bytes_view(daemon_models_t *t, const daemon_model_source_t *src, daemon_model_t **ret,
                            const void **ret_view, char *err, size_t err_size) {
        _cleanup_free_ daemon_model_t *m = calloc(1, sizeof(*m));

        if (!m)
                return -ENOMEM;
        m->wcache = t->wcache;
        if (src->fd >= 0) {
                _cleanup_close_ int fd = -1;
                void *p;
                int r;

                r = daemon_clientfd_model(src->fd, t->max_model_bytes, 0, &fd, &m->size, err, err_size);
                if (r < 0)
                        return r;
                p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
                if (p == MAP_FAILED) {
                        r = -errno;
                        (void) snprintf(err, err_size, "cannot map the model fd: %s", strerror(-r));
                        return r;
                }
                m->map = p;
                m->map_size = m->size;
                *ret_view = p;
        } else {
                if (src->size == 0) {
                        (void) snprintf(err, err_size, "the model is empty");
                        return -EINVAL;
                }
                if (src->size > t->max_model_bytes) {
                        (void) snprintf(err, err_size, "model of %zu bytes exceeds max_model_bytes (%zu)",
                                        src->size, t->max_model_bytes);
                        return -EDQUOT;
                }
                m->size = src->size;
                *ret_view = src->bytes;
        }
        acc_sha256_hex(*ret_view, m->size, m->sha256);
        if (src->name) {
                m->name = strdup(src->name);
                if (!m->name) {
                        model_free(TAKE_PTR(m));
                        return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(m);
        return 0;
}

/*
 * Make the model's bytes its own before it is loaded and shared. A mapped
 * fd is already sealed for good (model_bytes_view()); inline bytes are
 * copied (the request goes away).
 */
static int model_bytes_own(daemon_model_t *m, const void *view) {
        if (m->map)
                return 0;
        m->copy = malloc(m->size);
        if (!m->copy)
                return -ENOMEM;
        memcpy(m->copy, view, m->size);
        return 0;
}

/* ---- instances ---- */

static void instance_free(daemon_instance_t *i) {
        if (!i)
                return;
        for (size_t k = 0; k < i->n_pool; k++)
                rt_interp_free(i->pool[k]);
        free(i->pool);
        for (size_t k = 0; k < i->n_batch_pool; k++)
                rt_interp_free(i->batch_pool[k].it);
        free(i->batch_pool);
        for (int32_t k = 0; k < i->n_inputs; k++)
                daemon_tensor_info_done(&i->inputs[k]);
        for (int32_t k = 0; k < i->n_outputs; k++)
                daemon_tensor_info_done(&i->outputs[k]);
        free(i->inputs);
        free(i->outputs);
        for (size_t k = 0; i->partitions && k < i->n_partitions; k++)
                free((char *) i->partitions[k].why);
        free(i->partitions);
        free(i->delegation_note);
        rt_settings_done(&i->settings);
        pthread_mutex_destroy(&i->pool_mu);
        free(i->key);
        free(i);
}

/* reference: the runtime's default (the reference kernels) instead of the
 * instance's settings, without the weights cache: the path accuracy is
 * measured against. */
static int interp_new_with(const daemon_instance_t *i, bool reference, rt_interp_t **ret, char *err,
                           size_t err_size) {
        rt_interp_options_t *o = rt_interp_options_new();
        rt_interp_t *it = NULL;
        int r = 0;

        if (!o)
                return -ENOMEM;
        if (!reference)
                r = rt_interp_options_set_settings(o, &i->settings);
        if (r == 0 && !reference && i->model->wcache)
                r = rt_interp_options_set_weights_cache(o, i->model->wcache, i->model->sha256);
        /* Groups that run in a driver host (the driver named, or XNNPACK as
         * its fallback) reach the arena's tensors in place: shared memory. */
        if (r == 0 && !reference &&
            (daemon_hosts_owns(rt_settings_driver_name(&i->settings)) || daemon_hosts_owns("xnnpack")))
                r = rt_interp_options_set_shared_arena(o, true);
        if (r == 0 && daemon_models_options_hook)
                daemon_models_options_hook(o);
        if (r == 0)
                r = rt_interp_create(i->model->rt, o, &it, err, err_size);
        (void) rt_interp_options_free(o);
        if (r < 0) {
                if (!err[0])
                        (void) snprintf(err, err_size, "cannot create an interpreter: %s", strerror(-r));
                return r;
        }
        r = rt_interp_allocate_tensors(it);
        if (r < 0) {
                (void) snprintf(err, err_size, "%s", rt_interp_last_error(it));
                rt_interp_free(it);
                return r;
        }
        *ret = it;
        return 0;
}

static int interp_new(const daemon_instance_t *i, rt_interp_t **ret, char *err, size_t err_size) {
        return interp_new_with(i, false, ret, err, err_size);
}

int daemon_instance_interp_new(const daemon_instance_t *i, rt_interp_t **ret, char *err, size_t err_size) {
        return interp_new(i, ret, err, err_size);
}

int daemon_instance_reference_interp_new(const daemon_instance_t *i, rt_interp_t **ret, char *err,
                                         size_t err_size) {
        return interp_new_with(i, true, ret, err, err_size);
}

static int pool_push(daemon_instance_t *i, rt_interp_t *it) {
        if (i->n_pool == i->cap_pool) {
                size_t cap = i->cap_pool ? i->cap_pool * 2 : 4;
                rt_interp_t **p = realloc(i->pool, cap * sizeof(*p));

                if (!p)
                        return -ENOMEM;
                i->pool = p;
                i->cap_pool = cap;
        }
        i->pool[i->n_pool++] = it;
        return 0;
}

/* Compile `m` with `settings`: one interpreter, created and allocated,
 * becomes the first of the pool and describes the signature. */
static int instance_compile(daemon_model_t *m, const rt_settings_t *settings, daemon_instance_t **ret,
                            char *err, size_t err_size) {
        char key[1024];
        daemon_instance_t *i;
        rt_interp_t *it = NULL;
        uint64_t t0 = acc_now_us();
        size_t n;
        int r;

        i = calloc(1, sizeof(*i));
        if (!i)
                return -ENOMEM;
        if (pthread_mutex_init(&i->pool_mu, NULL) != 0) {
                free(i);
                return -ENOMEM;
        }
        i->model = m;
        r = rt_settings_copy(&i->settings, settings);
        if (r < 0)
                goto fail;
        rt_settings_key(settings, key, sizeof(key));
        if (asprintf(&i->key, "%s|%s", m->sha256, key) < 0) {
                i->key = NULL;
                r = -ENOMEM;
                goto fail;
        }
        i->settings_key = i->key + strlen(m->sha256) + 1;
        (void) snprintf(i->queue, sizeof(i->queue), "%s", rt_settings_driver_name(settings));

        r = interp_new(i, &it, err, err_size);
        if (r < 0)
                goto fail;
        i->n_interps = 1;
        i->stateful = rt_interp_has_state(it);
        i->n_inputs = rt_interp_input_count(it);
        i->n_outputs = rt_interp_output_count(it);
        i->inputs = calloc((size_t) i->n_inputs + 1, sizeof(*i->inputs));
        i->outputs = calloc((size_t) i->n_outputs + 1, sizeof(*i->outputs));
        if (!i->inputs || !i->outputs) {
                r = -ENOMEM;
                goto fail_it;
        }
        for (int32_t k = 0; k < i->n_inputs; k++)
                if ((r = daemon_tensor_info_from(&i->inputs[k], rt_interp_input_tensor(it, k))) < 0)
                        goto fail_it;
        for (int32_t k = 0; k < i->n_outputs; k++)
                if ((r = daemon_tensor_info_from(&i->outputs[k], rt_interp_output_tensor(it, k))) < 0)
                        goto fail_it;
        n = rt_interp_partitions(it, NULL, 0);
        i->partitions = calloc(n + 1, sizeof(*i->partitions));
        if (!i->partitions) {
                r = -ENOMEM;
                goto fail_it;
        }
        i->n_partitions = rt_interp_partitions(it, i->partitions, n);
        for (size_t k = 0; k < i->n_partitions; k++) {
                i->partitions[k].why = strdup(i->partitions[k].why ? i->partitions[k].why : "");
                if (!i->partitions[k].why) {
                        i->n_partitions = k;
                        r = -ENOMEM;
                        goto fail_it;
                }
        }
        i->delegation_note = strdup(rt_interp_delegation_note(it));
        if (!i->delegation_note) {
                r = -ENOMEM;
                goto fail_it;
        }
        r = pool_push(i, it);
        if (r < 0)
                goto fail_it;
        i->compile_us = acc_now_us() - t0;
        *ret = i;
        return 0;
fail_it:
        rt_interp_free(it);
fail:
        i->model = NULL;
        instance_free(i);
        return r;
}

/*
 * Compile unless the quarantine refuses these settings for this model, or
 * compile for the CPU when it says so (the instance keeps the settings it
 * was asked for, and its note says what ran instead). A driver host that
 * dies while compiling is recorded for the quarantine.
 */
static int instance_compile_admitted(daemon_model_t *m, const rt_settings_t *settings, daemon_instance_t **ret,
                                     char *err, size_t err_size) {
        char why[512] = "";
        rt_settings_t cpu;
        int q = daemon_quarantine_admit(m->sha256, settings, why, sizeof(why)), r;

        if (q < 0) {
                (void) snprintf(err, err_size, "%s", why);
                return q;
        }
        if (q == 0) {
                r = instance_compile(m, settings, ret, err, err_size);
                if (r == -EOWNERDEAD)
                        daemon_quarantine_record(m->sha256, settings, true);
                return r;
        }
        if (rt_settings_copy(&cpu, settings) < 0)
                return -ENOMEM;
        cpu.delegate = RT_DELEGATE_XNNPACK;
        (void) snprintf(cpu.delegate_name, sizeof(cpu.delegate_name), "XNNPACK");
        cpu.fallback_on_compilation_error = true;
        r = instance_compile(m, &cpu, ret, err, err_size);
        rt_settings_done(&cpu);
        if (r == 0) {
                char *note = strdup(why);
                if (note) {
                        free((*ret)->delegation_note);
                        (*ret)->delegation_note = note;
                }
        }
        return r;
}

int daemon_models_prepare(daemon_models_t *t, const daemon_model_source_t *src, const rt_settings_t *settings,
                          daemon_instance_t **ret, bool *ret_shared, char *err, size_t err_size) {
        daemon_model_t *m = NULL, *fresh = NULL;
        daemon_instance_t *i = NULL, *found;
        const void *view = NULL;
        char key[1024], sha[ACC_SHA256_HEX_SIZE];
        int r;

        err[0] = '\0';
        rt_settings_key(settings, key, sizeof(key));
        if (src->sha256) {
                (void) snprintf(sha, sizeof(sha), "%s", src->sha256);
                for (char *p = sha; *p; p++)
                        if (*p >= 'A' && *p <= 'F')
                                *p = (char) (*p - 'A' + 'a');
        } else {
                r = model_bytes_view(t, src, &fresh, &view, err, err_size);
                if (r < 0)
                        return r;
                memcpy(sha, fresh->sha256, sizeof(sha));
        }

        /* The quarantine holds for an instance that is still shared too:
         * one compiled before the second failure must not be handed out
         * again (a client's release can come after the next prepare). The
         * CPU fallback the settings may allow is instance_compile_admitted()'s. */
        {
                char why[512] = "";
                int q = daemon_quarantine_admit(sha, settings, why, sizeof(why));
                if (q < 0) {
                        (void) snprintf(err, err_size, "%s", why);
                        model_free(fresh);
                        return q;
                }
        }

        /* The common case of sharing: a table lookup. */
        pthread_mutex_lock(&t->mu);
        for (found = t->instances; found; found = found->next)
                if (strcmp(found->model->sha256, sha) == 0 && strcmp(found->settings_key, key) == 0)
                        break;
        if (found) {
                found->n_ref++;
                pthread_mutex_unlock(&t->mu);
                model_free(fresh);
                *ret = found;
                *ret_shared = true;
                return 0;
        }
        m = model_find_locked(t, sha);
        if (m)
                m->n_ref++;   /* pinned while we compile */
        pthread_mutex_unlock(&t->mu);

        if (!m) {
                if (!fresh) {
                        (void) snprintf(err, err_size, "no model with sha256 %s is loaded", sha);
                        return -ENOENT;
                }
                /* A new model: only now are its bytes copied (if at all). */
                r = model_bytes_own(fresh, view);
                if (r == 0)
                        r = rt_model_load_buffer(fresh->map ? fresh->map : fresh->copy, fresh->size, false,
                                                 &fresh->rt, err, err_size);
                if (r < 0) {
                        model_free(fresh);
                        return r;
                }
                m = fresh;
                fresh = NULL;
                m->n_ref = 1;
                /* Another thread may have loaded the same bytes meanwhile. */
                pthread_mutex_lock(&t->mu);
                daemon_model_t *other = model_find_locked(t, sha);
                if (other) {
                        other->n_ref++;
                        pthread_mutex_unlock(&t->mu);
                        model_free(m);
                        m = other;
                } else {
                        m->next = t->models;
                        t->models = m;
                        t->n_models++;
                        pthread_mutex_unlock(&t->mu);
                }
        } else
                model_free(fresh);

        r = instance_compile_admitted(m, settings, &i, err, err_size);
        if (r == 0) {
                i->exec_slots.limit = t->instance_concurrency;
                i->batch_max = t->batch_max;
                i->batch_delay_ns = t->batch_delay_ns;
        }

        pthread_mutex_lock(&t->mu);
        if (r < 0) {
                /* Drop our pin; an unused model leaves the table. */
                if (--m->n_ref == 0) {
                        for (daemon_model_t **p = &t->models; *p; p = &(*p)->next)
                                if (*p == m) {
                                        *p = m->next;
                                        break;
                                }
                        t->n_models--;
                        pthread_mutex_unlock(&t->mu);
                        model_free(m);
                        return r;
                }
                pthread_mutex_unlock(&t->mu);
                return r;
        }
        for (found = t->instances; found; found = found->next)
                if (strcmp(found->key, i->key) == 0)
                        break;
        if (found) {
                /* Compiled twice concurrently: keep the first. */
                found->n_ref++;
                m->n_ref--;
                pthread_mutex_unlock(&t->mu);
                i->model = NULL;
                instance_free(i);
                *ret = found;
                *ret_shared = true;
                return 0;
        }
        i->n_ref = 1;
        i->next = t->instances;
        t->instances = i;
        t->n_instances++;
        pthread_mutex_unlock(&t->mu);
        *ret = i;
        *ret_shared = false;
        return 0;
}

/* ---- the release thread ---- */

/* Whether freeing `i` calls into a plugin loaded into acceld: its driver
 * is neither built in nor run by a driver host (whose proxy already
 * releases off the caller's thread, host/proxy.c). */
static bool instance_release_may_block(const daemon_instance_t *i) {
        const char *d = rt_settings_driver_name(&i->settings);

        if (!d || !d[0] || strcasecmp(d, "reference") == 0 || strcasecmp(d, "xnnpack") == 0 ||
            strcasecmp(d, "none") == 0)
                return false;
        return !daemon_hosts_owns(d);
}

static void *release_main(void *arg) {
        daemon_models_t *t = arg;

        pthread_mutex_lock(&t->release_mu);
        for (;;) {
                daemon_instance_t *i = t->releases;

                if (!i) {
                        if (t->release_stopping)
                                break;
                        pthread_cond_wait(&t->release_cond, &t->release_mu);
                        continue;
                }
                t->releases = i->next;
                if (!t->releases)
                        t->releases_tail = &t->releases;
                pthread_mutex_unlock(&t->release_mu);
                daemon_model_t *m = i->release_model;
                instance_free(i);
                model_free(m);
                pthread_mutex_lock(&t->release_mu);
                t->releases_pending--;
        }
        pthread_mutex_unlock(&t->release_mu);
        return NULL;
}

/* Queue `i` (and `m`, its model's last use, or NULL) for the release
 * thread; false when it cannot run (the caller frees them itself). */
static bool release_queue(daemon_models_t *t, daemon_instance_t *i, daemon_model_t *m) {
        bool ok = true;

        pthread_mutex_lock(&t->release_mu);
        if (!t->release_started && !t->release_stopping)
                t->release_started = pthread_create(&t->release_thread, NULL, release_main, t) == 0;
        if (!t->release_started || t->release_stopping)
                ok = false;
        else {
                i->release_model = m;
                i->next = NULL;
                *t->releases_tail = i;
                t->releases_tail = &i->next;
                t->releases_pending++;
                pthread_cond_signal(&t->release_cond);
        }
        pthread_mutex_unlock(&t->release_mu);
        return ok;
}

unsigned daemon_models_releases_pending(daemon_models_t *t) {
        unsigned n;

        pthread_mutex_lock(&t->release_mu);
        n = t->releases_pending;
        pthread_mutex_unlock(&t->release_mu);
        return n;
}

daemon_instance_t *daemon_instance_ref(daemon_models_t *t, daemon_instance_t *i) {
        if (!i)
                return NULL;
        pthread_mutex_lock(&t->mu);
        i->n_ref++;
        pthread_mutex_unlock(&t->mu);
        return i;
}

daemon_instance_t *daemon_instance_unref(daemon_models_t *t, daemon_instance_t *i) {
        daemon_model_t *m = NULL;

        if (!i)
                return NULL;
        pthread_mutex_lock(&t->mu);
        if (--i->n_ref > 0) {
                pthread_mutex_unlock(&t->mu);
                return NULL;
        }
        for (daemon_instance_t **p = &t->instances; *p; p = &(*p)->next)
                if (*p == i) {
                        *p = i->next;
                        break;
                }
        t->n_instances--;
        if (--i->model->n_ref == 0) {
                m = i->model;
                for (daemon_model_t **p = &t->models; *p; p = &(*p)->next)
                        if (*p == m) {
                                *p = m->next;
                                break;
                        }
                t->n_models--;
        }
        pthread_mutex_unlock(&t->mu);
        if (instance_release_may_block(i) && release_queue(t, i, m))
                return NULL;
        /* Interpreters first: they borrow the model. */
        instance_free(i);
        model_free(m);
        return NULL;
}

int daemon_instance_acquire(daemon_instance_t *i, rt_interp_t **ret, char *err, size_t err_size) {
        rt_interp_t *it = NULL;
        int r;

        pthread_mutex_lock(&i->pool_mu);
        if (i->n_pool > 0)
                it = i->pool[--i->n_pool];
        pthread_mutex_unlock(&i->pool_mu);
        if (it) {
                *ret = it;
                return 0;
        }
        /* Every interpreter is busy: this execution gets its own. */
        err[0] = '\0';
        r = interp_new(i, &it, err, err_size);
        if (r < 0)
                return r;
        pthread_mutex_lock(&i->pool_mu);
        i->n_interps++;
        pthread_mutex_unlock(&i->pool_mu);
        *ret = it;
        return 0;
}

void daemon_instance_release(daemon_instance_t *i, rt_interp_t *it) {
        int r;

        pthread_mutex_lock(&i->pool_mu);
        r = pool_push(i, it);
        if (r < 0)
                i->n_interps--;
        pthread_mutex_unlock(&i->pool_mu);
        if (r < 0)
                rt_interp_free(it);
}

int daemon_models_list(daemon_models_t *t, daemon_model_entry_t **ret, size_t *ret_n) {
        daemon_model_entry_t *v;
        size_t n = 0;

        pthread_mutex_lock(&t->mu);
        v = calloc(t->n_models + 1, sizeof(*v));
        if (!v) {
                pthread_mutex_unlock(&t->mu);
                return -ENOMEM;
        }
        for (daemon_model_t *m = t->models; m; m = m->next, n++) {
                memcpy(v[n].sha256, m->sha256, sizeof(v[n].sha256));
                (void) snprintf(v[n].name, sizeof(v[n].name), "%s", m->name ? m->name : "");
                v[n].size = m->size;
                for (daemon_instance_t *i = t->instances; i; i = i->next)
                        if (i->model == m) {
                                v[n].instances++;
                                v[n].references += i->n_ref;
                        }
        }
        pthread_mutex_unlock(&t->mu);
        *ret = v;
        *ret_n = n;
        return 0;
}

void daemon_models_counts(daemon_models_t *t, unsigned *ret_models, unsigned *ret_instances,
                          unsigned *ret_interps) {
        unsigned interps = 0;

        pthread_mutex_lock(&t->mu);
        for (daemon_instance_t *i = t->instances; i; i = i->next) {
                pthread_mutex_lock(&i->pool_mu);
                interps += i->n_interps;
                pthread_mutex_unlock(&i->pool_mu);
        }
        if (ret_models)
                *ret_models = t->n_models;
        if (ret_instances)
                *ret_instances = t->n_instances;
        if (ret_interps)
                *ret_interps = interps;
        pthread_mutex_unlock(&t->mu);
}

void daemon_models_done(daemon_models_t *t) {
        pthread_mutex_lock(&t->release_mu);
        t->release_stopping = true;
        pthread_cond_signal(&t->release_cond);
        pthread_mutex_unlock(&t->release_mu);
        if (t->release_started)
                (void) pthread_join(t->release_thread, NULL);
        pthread_cond_destroy(&t->release_cond);
        pthread_mutex_destroy(&t->release_mu);
        while (t->instances) {
                daemon_instance_t *i = t->instances;

                t->instances = i->next;
                instance_free(i);
        }
        while (t->models) {
                daemon_model_t *m = t->models;

                t->models = m->next;
                model_free(m);
        }
        t->wcache = rt_wcache_close(t->wcache);
        pthread_mutex_destroy(&t->mu);
}
