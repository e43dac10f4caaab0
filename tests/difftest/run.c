/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running a case's model: on our runtime, or in a child process (ours or
 * native TensorFlow Lite), so that an abort inside a driver or inside
 * TensorFlow Lite is reported for that case instead of ending the run.
 * Shared by difftest and modelfuzz (its in-situ check).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dt.h"
#include "native.h"
#include "rt.h"

int dt_ours_run(const uint8_t *model, size_t size, const dt_case_t *c, bool xnnpack, void **outs,
                size_t *out_sizes, char *err, size_t err_size) {
        rt_model_t *m = NULL;
        rt_interp_t *it = NULL;
        int r = rt_model_load_buffer(model, size, true, &m, err, err_size);
        if (r < 0)
                return r;
        rt_interp_options_t *o = rt_interp_options_new();
        if (!o) {
                rt_model_free(m);
                return -ENOMEM;
        }
        rt_settings_t s;
        rt_settings_init(&s);
        if (xnnpack) {
                s.delegate = RT_DELEGATE_XNNPACK;
                snprintf(s.delegate_name, sizeof(s.delegate_name), "XNNPACK");
                s.xnnpack_num_threads = 1;
        }
        rt_interp_options_set_num_threads(o, 1);
        r = rt_interp_options_set_settings(o, &s);
        if (r == 0)
                r = rt_interp_create(m, o, &it, err, err_size);
        rt_interp_options_free(o);
        rt_settings_done(&s);
        const char *stage = "allocate";
        if (r == 0)
                r = rt_interp_allocate_tensors(it);
        for (int i = 0; r == 0 && i < c->n_in; i++) {
                stage = "copy in";
                r = rt_interp_copy_in(it, i, c->in[i].data, c->in[i].bytes);
        }
        if (r == 0) {
                stage = "invoke";
                r = rt_interp_invoke(it);
        }
        if (r < 0 && it)
                snprintf(err, err_size, "%s: %s", stage, rt_interp_last_error(it));
        for (int i = 0; r == 0 && i < c->n_out; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                size_t bytes = t && t->data ? (size_t) rt_tensor_count(t) * rt_type_size(t->type) : 0;
                outs[i] = malloc(bytes ? bytes : 1);
                if (!outs[i]) {
                        r = -ENOMEM;
                        break;
                }
                if (bytes)
                        memcpy(outs[i], t->data, bytes);
                out_sizes[i] = bytes;
        }
        rt_interp_free(it);
        rt_model_free(m);
        return r;
}


static int read_full(int fd, void *buf, size_t n) {
        uint8_t *p = buf;
        while (n) {
                ssize_t k = read(fd, p, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return -EIO;
                p += k, n -= (size_t) k;
        }
        return 0;
}

static void write_full(int fd, const void *buf, size_t n) {
        const uint8_t *p = buf;
        while (n) {
                ssize_t k = write(fd, p, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        _exit(3);
                p += k, n -= (size_t) k;
        }
}

/* In the child: 0 or -errno for ours; the output count or -errno for TFLite. */
static int runner_here(const dt_runner_t *rn, const uint8_t *model, size_t size, const dt_case_t *c, void **outs,
                       size_t *out_sizes, char *err, size_t err_size) {
        if (!rn->native)
                return dt_ours_run(model, size, c, rn->xnnpack, outs, out_sizes, err, err_size);
        void *ins[DT_MAX_IO];
        size_t in_sizes[DT_MAX_IO];
        for (int i = 0; i < c->n_in; i++)
                ins[i] = c->in[i].data, in_sizes[i] = c->in[i].bytes;
        if (rn->xnnpack) { /* in the child only */
                if (dt_native_use_xnnpack(rn->native, true) < 0)
                        return -ENOSYS;
                /* Quiet its "Created TensorFlow Lite XNNPACK delegate" notice. */
                int null_fd = open("/dev/null", O_WRONLY);
                if (null_fd >= 0) {
                        (void) dup2(null_fd, STDERR_FILENO);
                        close(null_fd);
                }
        }
        int r = dt_native_run(rn->native, model, size, ins, in_sizes, c->n_in, outs, out_sizes, DT_MAX_IO, err,
                              err_size);
        return r >= 0 && r != c->n_out ? -EINVAL : r < 0 ? r : 0;
}

int dt_isolated_run(const dt_runner_t *rn, const uint8_t *model, size_t size, const dt_case_t *c, void **outs,
                    size_t *out_sizes, char *err, size_t err_size) {
        int fds[2];
        if (pipe(fds) < 0)
                return -errno;
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                close(fds[0]), close(fds[1]);
                return -errno;
        }
        if (pid == 0) {
                close(fds[0]);
                char e[1024] = "";
                void *o[DT_MAX_IO] = { 0 };
                size_t os[DT_MAX_IO] = { 0 };
                int32_t r = runner_here(rn, model, size, c, o, os, e, sizeof(e));
                write_full(fds[1], &r, sizeof(r));
                write_full(fds[1], e, sizeof(e));
                for (int i = 0; r == 0 && i < c->n_out; i++) {
                        uint64_t n = os[i];
                        write_full(fds[1], &n, sizeof(n));
                        write_full(fds[1], o[i], os[i]);
                }
                _exit(0);
        }
        close(fds[1]);
        int32_t r = 0;
        char e[1024];
        int rr = read_full(fds[0], &r, sizeof(r));
        if (rr == 0)
                rr = read_full(fds[0], e, sizeof(e));
        if (rr == 0) {
                e[sizeof(e) - 1] = '\0';
                snprintf(err, err_size, "%s", e);
        }
        for (int i = 0; rr == 0 && r == 0 && i < c->n_out; i++) {
                uint64_t n = 0;
                rr = read_full(fds[0], &n, sizeof(n));
                if (rr < 0)
                        break;
                outs[i] = malloc(n ? n : 1);
                if (!outs[i]) {
                        rr = -ENOMEM;
                        break;
                }
                out_sizes[i] = n;
                rr = read_full(fds[0], outs[i], n);
        }
        close(fds[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (WIFSIGNALED(status)) {
                snprintf(err, err_size, "crashed with signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
                return -EFAULT;
        }
        if (rr < 0) {
                snprintf(err, err_size, "lost the result of the child process");
                return rr;
        }
        return r;
}
