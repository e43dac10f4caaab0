/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's side of the driver hosts: one proxy rt_driver_t per plugin,
 * forwarding every call to its `acceld --driver-host` child (host.h).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child-exec.h"
#include "clock.h"
#include "settings.h"
#include "driver.h"
#include "fold.h"
#include "graph.h"
#include "host.h"
#include "ipc.h"
#include "log.h"
#include "rt.h"
#include "shm.h"

#define HOST_FD 3
#define HOST_HELLO_MS 5000u
#define HOST_RELEASE_MS 1000u
#define HOST_BACKOFF_FIRST_MS 100u
#define HOST_BACKOFF_MAX_MS 30000u
#define HOST_WAIT_MAX_NS (2000ull * 1000000ull)
#define HOST_STABLE_NS (30ull * 1000000000ull)
/* How long the release thread lets a busy host be before it looks again,
 * and how long it waits (holding the host) for an abandoned call's answer. */
#define HOST_RELEASE_RETRY_MS 50u
#define HOST_RELEASE_SETTLE_MS 5u
#define REGION_ALIGN 64u
#define REGION_SLACK 64u
/* Shared regions a host may keep mapped at once (the oldest are forgotten). */
#define HOST_KNOWN_MAX 256u

typedef struct host {
        rt_driver_t drv;                /* the proxy acceld's runtime calls */
        char path[4096];
        char name[64];
        char version[128];
        pthread_mutex_t mu;             /* one call at a time; guards all below */
        pid_t pid;                      /* 0 when not running */
        _Atomic pid_t live_pid;         /* pid, readable without mu (for kill) */
        int fd;
        ipc_reader_t rd;
        uint64_t generation;            /* bumped by every start */
        uint64_t started_ns, retry_ns;
        uint32_t backoff_ms;
        /* A call whose caller stopped waiting at its request's deadline:
         * the host is still on it, and its answer is read and dropped
         * before the next call. Killed only past abandoned_until_ns (the
         * call's own bound, max_execution_ms: the host watchdog). */
        bool abandoned;
        Acceld__HostRequest__Kind abandoned_kind;
        uint64_t abandoned_until_ns;
        uint32_t abandoned_ms;
        atomic_uint starts, deaths;
        atomic_ullong tensors_in_place, tensors_copied;
        char last_death[192];
        int last_signal, last_exit;     /* of the last death; 0 / -1 when unknown */
        /* The shared regions (shm.h ids) this host generation has mapped. */
        uint64_t known[HOST_KNOWN_MAX];
        size_t n_known;
        uint64_t known_epoch;           /* rt_shm_epoch() when known was last checked */
} host_t;

/* A prepared group to release in its host, off the releasing thread. */
typedef struct release {
        host_t *h;
        uint64_t generation, id;
} release_t;

static struct {
        host_t **v;
        size_t n;
        char exe[4096];
        uint64_t max_call_ms;
        atomic_bool stopping;
        /* Releases queued by proxy_release() for the release thread. */
        pthread_mutex_t rel_mu;
        pthread_cond_t rel_cond;
        release_t *rel;
        size_t n_rel, cap_rel;
        pthread_t rel_thread;
        bool rel_started, rel_stop;
} hosts = { .rel_mu = PTHREAD_MUTEX_INITIALIZER, .rel_cond = PTHREAD_COND_INITIALIZER };

/* A group prepared in a host: what it takes to prepare it again in the
 * next one, and the shared region its tensors travel through. */
typedef struct remote {
        host_t *h;
        uint64_t generation, id;
        int model_fd, region_fd;
        uint8_t *region;
        size_t region_size;
        uint8_t *settings;
        size_t settings_size;
        int32_t *nodes, *inputs, *outputs;
        int32_t n_nodes, n_inputs, n_outputs;
        uint64_t *offsets;
        size_t *slot_bytes;
        /* EXECUTE's io_regions / io_offsets / io_sizes, filled per call. */
        uint64_t *io_regions, *io_offsets, *io_sizes;
        Acceld__HostTensorShape *shapes;
        Acceld__HostTensorShape **shape_ptrs;
        int32_t *shape_dims;
        size_t n_shapes;
        char weights_dir[512];          /* "" without a weights cache */
        char model_key[96];
} remote_t;

/* What the host needs to fold the weights as acceld's interpreter did:
 * the cache directory and the model key of g's weights hook. */
static void remote_weights(remote_t *rm, const rt_driver_graph_t *g) {
        const rt_weights_hook_t *w = (const rt_weights_hook_t *) g->weights;

        if (!w || !w->cache)
                return;
        (void) snprintf(rm->weights_dir, sizeof(rm->weights_dir), "%s", rt_wcache_dir(w->cache));
        (void) snprintf(rm->model_key, sizeof(rm->model_key), "%s", w->model_key);
}

static void request_weights(Acceld__HostRequest *rq, remote_t *rm) {
        if (rm->weights_dir[0]) {
                rq->weights_dir = rm->weights_dir;
                rq->model_key = rm->model_key;
        }
}

/* The deadline (CLOCK_MONOTONIC ns, 0 = none) of the request this worker
 * thread is running, which bounds its calls into hosts. */
static __thread uint64_t call_deadline_ns;

void daemon_hosts_set_deadline(uint64_t deadline_ns) {
        call_deadline_ns = deadline_ns;
}

/* ---- the child ---- */

static void child_exec(pid_t parent, const char *exe, int sock, const char *plugin) {
        /* Async-signal-safe calls only: we are the child of a threaded process. */
        char *const argv[] = { (char *) exe, (char *) DAEMON_HOST_ARG, (char *) plugin, NULL };
        struct rlimit rl = { 0, 0 };
        int tmp, devnull;

        (void) setpgid(0, 0);
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* acceld may have ended between the fork and the prctl: no signal
         * would come for it. */
        if (getppid() != parent)
                _exit(127);
        (void) prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        tmp = fcntl(sock, F_DUPFD, 10);
        if (tmp < 0 || dup2(tmp, HOST_FD) < 0)
                _exit(126);
        devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
                (void) dup2(devnull, 0);
                (void) dup2(devnull, 1);
        }
#ifdef SYS_close_range
        (void) syscall(SYS_close_range, HOST_FD + 1, ~0u, 0);
#endif
        (void) setrlimit(RLIMIT_CORE, &rl);
        acc_child_exec(exe, argv);
}

/*
 * PR_SET_PDEATHSIG (above, and the sandbox's) fires when the *thread* that
 * forked the child ends, not its process. Calls into hosts run on whatever
 * thread serves the request, and a lane's thread (serving/lane.c) ends with
 * its lane: a host it restarted would be SIGKILLed when that lane closed,
 * failing the other requests on it and counting a death against the model.
 * So hosts are forked by one thread of their own, which lives as long as
 * acceld (a host still dies with acceld: that thread ends with it).
 */
static struct {
        pthread_once_t once;
        pthread_mutex_t call_mu;        /* one fork asked at a time */
        pthread_mutex_t mu;             /* guards the fields below */
        pthread_cond_t cond;
        bool running;                   /* the thread started */
        bool asked, answered;
        const char *exe, *plugin;
        int sock;
        pid_t pid;                      /* the answer: a pid, or -errno */
} spawner = { .once = PTHREAD_ONCE_INIT, .call_mu = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER,
              .cond = PTHREAD_COND_INITIALIZER };

static void *spawner_main(void *arg) {
        (void) arg;
        pthread_mutex_lock(&spawner.mu);
        for (;;) {
                pid_t pid;

                while (!spawner.asked)
                        pthread_cond_wait(&spawner.cond, &spawner.mu);
                pid_t parent = getpid();
                pid = fork();
                if (pid == 0)
                        child_exec(parent, spawner.exe, spawner.sock, spawner.plugin);
                spawner.pid = pid < 0 ? -errno : pid;
                spawner.asked = false;
                spawner.answered = true;
                pthread_cond_broadcast(&spawner.cond);
        }
        return NULL;
}

static void spawner_start(void) {
        pthread_attr_t attr;
        pthread_t t;

        if (pthread_attr_init(&attr) != 0)
                return;
        (void) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        spawner.running = pthread_create(&t, &attr, spawner_main, NULL) == 0;
        (void) pthread_attr_destroy(&attr);
        if (spawner.running)
                (void) pthread_setname_np(t, "acceld-spawn");
}

/* Fork a host for `plugin` on socket `sock`: its pid, or -errno. Without
 * the spawner thread (it could not start) the caller forks. */
static pid_t host_fork(const char *plugin, int sock) {
        pid_t pid;

        (void) pthread_once(&spawner.once, spawner_start);
        if (!spawner.running) {
                pid_t parent = getpid();
                pid = fork();
                if (pid == 0)
                        child_exec(parent, hosts.exe, sock, plugin);
                return pid < 0 ? -errno : pid;
        }
        pthread_mutex_lock(&spawner.call_mu);
        pthread_mutex_lock(&spawner.mu);
        spawner.exe = hosts.exe;
        spawner.plugin = plugin;
        spawner.sock = sock;
        spawner.answered = false;
        spawner.asked = true;
        pthread_cond_broadcast(&spawner.cond);
        while (!spawner.answered)
                pthread_cond_wait(&spawner.cond, &spawner.mu);
        pid = spawner.pid;
        pthread_mutex_unlock(&spawner.mu);
        pthread_mutex_unlock(&spawner.call_mu);
        return pid;
}

/* ---- start, death, calls (h->mu held) ---- */

/* Start a host. A short back-off (HOST_WAIT_MAX_NS) that ends before
 * deadline_ns (0 = none) is waited out: the caller is a worker thread, and
 * its request may well succeed on the new host instead of failing. */
static int host_start(host_t *h, uint64_t deadline_ns, char *err, size_t err_size) {
        uint64_t now = acc_now_ns();
        int sv[2];
        pid_t pid;

        if (now < h->retry_ns && h->retry_ns - now <= HOST_WAIT_MAX_NS && (!deadline_ns || h->retry_ns < deadline_ns)) {
                struct timespec ts = { .tv_sec = (time_t) ((h->retry_ns - now) / 1000000000ull),
                                       .tv_nsec = (long) ((h->retry_ns - now) % 1000000000ull) };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
                now = acc_now_ns();
        }
        if (now < h->retry_ns) {
                snprintf(err, err_size, "driver %s is restarting after its host died (%s); next try in %llu ms",
                         h->name, h->last_death, (unsigned long long) ((h->retry_ns - now) / 1000000ull + 1));
                return -EOWNERDEAD;
        }
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
                snprintf(err, err_size, "driver %s: socketpair: %s", h->name, strerror(errno));
                return -errno;
        }
        pid = host_fork(h->path, sv[1]);
        if (pid < 0) {
                (void) close(sv[0]);
                (void) close(sv[1]);
                snprintf(err, err_size, "driver %s: fork: %s", h->name, strerror(-pid));
                return pid;
        }
        (void) setpgid(pid, pid);  /* also here, so the group exists before any kill */
        (void) close(sv[1]);
        h->pid = pid;
        atomic_store(&h->live_pid, pid);
        h->fd = sv[0];
        ipc_reader_init(&h->rd, IPC_FRAME_LIMIT_DEFAULT);
        h->generation++;
        h->n_known = 0;
        h->starts++;
        h->started_ns = now;
        return 0;
}

/* Kill what is left of the host, reap it and say how it ended in err. */
static int host_died(host_t *h, const char *during, uint64_t killed_after_ms, char *err, size_t err_size) {
        int status = 0;
        char how[96];
        uint64_t now = acc_now_ns();

        (void) kill(-h->pid, SIGKILL);
        while (waitpid(h->pid, &status, 0) < 0 && errno == EINTR)
                ;
        h->last_signal = killed_after_ms ? SIGKILL : WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        h->last_exit = WIFEXITED(status) && !killed_after_ms ? WEXITSTATUS(status) : -1;
        if (killed_after_ms)
                snprintf(how, sizeof(how), "killed after %llu ms without an answer",
                         (unsigned long long) killed_after_ms);
        else if (WIFSIGNALED(status))
                snprintf(how, sizeof(how), "died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else if (WIFEXITED(status))
                snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(status));
        else
                snprintf(how, sizeof(how), "ended");
        snprintf(h->last_death, sizeof(h->last_death), "%s during %s", how, during);
        if (atomic_load(&hosts.stopping))
                snprintf(err, err_size, "driver %s: acceld is stopping", h->name);
        else
                snprintf(err, err_size, "driver %s (host pid %d) %s", h->name, (int) h->pid, h->last_death);
        log_warning("driver host %s (pid %d) %s", h->name, (int) h->pid, h->last_death);
        (void) close(h->fd);
        h->fd = -1;
        ipc_reader_done(&h->rd);
        h->pid = 0;
        atomic_store(&h->live_pid, 0);
        h->abandoned = false;
        h->deaths++;
        if (now - h->started_ns > HOST_STABLE_NS)
                h->backoff_ms = 0;
        h->retry_ns = now + (uint64_t) h->backoff_ms * 1000000ull;
        h->backoff_ms = h->backoff_ms ? (h->backoff_ms * 2 > HOST_BACKOFF_MAX_MS ? HOST_BACKOFF_MAX_MS
                                                                                 : h->backoff_ms * 2)
                                      : HOST_BACKOFF_FIRST_MS;
        return -EOWNERDEAD;
}

static const char *kind_name(Acceld__HostRequest__Kind k) {
        switch (k) {
        case ACCELD__HOST_REQUEST__KIND__HELLO: return "start-up";
        case ACCELD__HOST_REQUEST__KIND__SUPPORTED_OPS: return "supported-operations";
        case ACCELD__HOST_REQUEST__KIND__PREPARE: return "prepare";
        case ACCELD__HOST_REQUEST__KIND__EXECUTE: return "execute";
        case ACCELD__HOST_REQUEST__KIND__RELEASE: return "release";
        default: return "a call";
        }
}

static void release_push(host_t *h, uint64_t generation, uint64_t id);

/* Wait for the host's next answer until `until_ns`: 1 with *ret, 0 when
 * the time is up first, -1 when the host is gone or spoke nonsense. */
static int host_wait_answer(host_t *h, uint64_t until_ns, Acceld__HostResponse **ret) {
        for (;;) {
                const uint8_t *payload;
                size_t len;
                int k = ipc_reader_next(&h->rd, &payload, &len);

                if (k < 0)
                        return -1;
                if (k > 0) {
                        Acceld__HostResponse *m = acceld__host_response__unpack(NULL, len, payload);
                        ipc_reader_consume(&h->rd);
                        if (!m)
                                return -1;
                        *ret = m;
                        return 1;
                }
                uint64_t now = acc_now_ns();
                if (now >= until_ns)
                        return 0;
                struct pollfd p = { .fd = h->fd, .events = POLLIN };
                int n = poll(&p, 1, (int) ((until_ns - now) / 1000000ull + 1));
                if (n < 0 && errno != EINTR)
                        return -1;
                if (n <= 0)
                        continue;
                ssize_t got = ipc_reader_recv(&h->rd, h->fd);
                if (got == 0 || (got < 0 && got != -EAGAIN && got != -EINTR))
                        return -1;
        }
}

/*
 * Before a call: a host still on an abandoned call gets until deadline_ns
 * (0 = none) to answer it, and the answer is dropped (a group it prepared
 * is released). Past the abandoned call's own bound the host is truly
 * stuck: it is killed, and the call goes to a new one. 0 when the host is
 * free (or gone), -ETIME when deadline_ns came first.
 */
static int host_settle(host_t *h, uint64_t deadline_ns, char *err, size_t err_size) {
        Acceld__HostResponse *m = NULL;
        const char *during = kind_name(h->abandoned_kind);
        uint64_t until = h->abandoned_until_ns;
        char ignored[256];
        int k;

        if (!h->abandoned || h->pid <= 0) {
                h->abandoned = false;
                return 0;
        }
        if (deadline_ns && deadline_ns < until)
                until = deadline_ns;
        k = host_wait_answer(h, until, &m);
        if (k < 0) {
                (void) host_died(h, during, 0, ignored, sizeof(ignored));
                return 0;
        }
        if (k > 0) {
                h->abandoned = false;
                if (h->abandoned_kind == ACCELD__HOST_REQUEST__KIND__PREPARE && m->result >= 0)
                        release_push(h, h->generation, m->prepared);
                acceld__host_response__free_unpacked(m, NULL);
                return 0;
        }
        if (acc_now_ns() >= h->abandoned_until_ns) {
                /* The host watchdog: no answer within the call's own bound. */
                (void) host_died(h, during, h->abandoned_ms, ignored, sizeof(ignored));
                return 0;
        }
        snprintf(err, err_size,
                 "driver %s: the request's deadline passed while the host finished an earlier %s", h->name,
                 during);
        return -ETIME;
}

/*
 * Send `rq` and wait for the answer: 0 with *ret (free with
 * acceld__host_response__free_unpacked). timeout_ms is the call's own
 * bound: past it the host is stuck, and is killed (-EOWNERDEAD, the reason
 * in err). deadline_ns (CLOCK_MONOTONIC, 0 = none) is the request's: when
 * it comes first the caller stops waiting (-ETIME), the host is left to
 * finish and its answer is dropped later (host_settle), so one client's
 * deadline never costs the others their shared host.
 */
static int host_call(host_t *h, Acceld__HostRequest *rq, const int *fds, size_t n_fds, uint64_t timeout_ms,
                     uint64_t deadline_ns, Acceld__HostResponse **ret, char *err, size_t err_size) {
        const char *during = kind_name(rq->kind);
        uint64_t watchdog, until, now;
        int r, k;

        if (atomic_load(&hosts.stopping)) {
                if (h->pid > 0)
                        return host_died(h, during, 0, err, err_size);
                snprintf(err, err_size, "driver %s: acceld is stopping", h->name);
                return -EOWNERDEAD;
        }
        r = host_settle(h, deadline_ns, err, err_size);
        if (r < 0)
                return r;
        if (h->pid <= 0 && (r = host_start(h, deadline_ns, err, err_size)) < 0)
                return r;
        rq->has_num_fds = 1;
        rq->num_fds = (uint32_t) n_fds;
        r = ipc_send(h->fd, &rq->base, fds, n_fds);
        if (r < 0)
                return host_died(h, during, 0, err, err_size);
        watchdog = acc_now_ns() + timeout_ms * 1000000ull;
        until = deadline_ns && deadline_ns < watchdog ? deadline_ns : watchdog;
        k = host_wait_answer(h, until, ret);
        if (k < 0)
                return host_died(h, during, 0, err, err_size);
        if (k > 0)
                return 0;
        now = acc_now_ns();
        if (now >= watchdog) {
                r = host_died(h, during, timeout_ms, err, err_size);
                /* Killed at the request's own deadline: NNAPI's
                 * MISSED_DEADLINE, not a dead driver. */
                return deadline_ns && now >= deadline_ns ? -ETIME : r;
        }
        h->abandoned = true;
        h->abandoned_kind = rq->kind;
        h->abandoned_until_ns = watchdog;
        h->abandoned_ms = (uint32_t) timeout_ms;
        snprintf(err, err_size, "driver %s: the request's deadline passed during %s (the host finishes it alone)",
                 h->name, during);
        return -ETIME;
}

/* A call whose answer carries a result: the driver's own error is passed
 * on with its message, and the node it named in *ret_node (may be NULL;
 * -1 when none). */
static int host_call_checked(host_t *h, Acceld__HostRequest *rq, const int *fds, size_t n_fds, uint64_t timeout_ms,
                             uint64_t deadline_ns, Acceld__HostResponse **ret, char *err, size_t err_size,
                             int32_t *ret_node) {
        Acceld__HostResponse *m = NULL;
        if (ret_node)
                *ret_node = -1;
        int r = host_call(h, rq, fds, n_fds, timeout_ms, deadline_ns, &m, err, err_size);
        if (r < 0)
                return r;
        if (m->result < 0) {
                r = m->result;
                snprintf(err, err_size, "%s", m->message ? m->message : strerror(-r));
                if (ret_node && m->has_error_node)
                        *ret_node = m->error_node;
                acceld__host_response__free_unpacked(m, NULL);
                return r;
        }
        *ret = m;
        return 0;
}

/* ---- helpers for the proxy ---- */

static int memfd_with(const void *data, size_t size, const char *name) {
        int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        const uint8_t *p = data;
        size_t done = 0;

        if (fd < 0)
                return -errno;
        while (done < size) {
                ssize_t n = write(fd, p + done, size - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        int r = n < 0 ? -errno : -EIO;
                        (void) close(fd);
                        return r;
                }
                done += (size_t) n;
        }
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
                int r = -errno;
                (void) close(fd);
                return r;
        }
        return fd;
}

/* The graph inputs' current shapes, which the host's graph copies. */
static int shapes_fill(remote_t *rm, const rt_driver_graph_t *g) {
        const rt_model_subgraph_t *sg = &g->model->subgraphs[0];
        size_t n = (size_t) sg->n_inputs;

        rm->shapes = calloc(n + 1, sizeof(*rm->shapes));
        rm->shape_ptrs = calloc(n + 1, sizeof(*rm->shape_ptrs));
        rm->shape_dims = calloc(n * RT_MAX_RANK + 1, sizeof(*rm->shape_dims));
        if (!rm->shapes || !rm->shape_ptrs || !rm->shape_dims)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int32_t t = sg->inputs[i];
                Acceld__HostTensorShape *s = &rm->shapes[i];
                acceld__host_tensor_shape__init(s);
                s->has_tensor = 1;
                s->tensor = t;
                if (t >= 0 && t < g->n_tensors) {
                        s->dims = rm->shape_dims + i * RT_MAX_RANK;
                        s->n_dims = (size_t) g->tensors[t].rank;
                        memcpy(s->dims, g->tensors[t].dims, s->n_dims * sizeof(int32_t));
                }
                rm->shape_ptrs[i] = s;
        }
        rm->n_shapes = n;
        return 0;
}

static int settings_pack_for(const rt_settings_t *s, uint8_t **ret, size_t *ret_size) {
        rt_settings_t def;
        if (s)
                return rt_settings_pack(s, ret, ret_size);
        rt_settings_init(&def);
        int r = rt_settings_pack(&def, ret, ret_size);
        rt_settings_done(&def);
        return r;
}

static void remote_free(remote_t *rm) {
        if (!rm)
                return;
        if (rm->region)
                (void) munmap(rm->region, rm->region_size);
        if (rm->model_fd >= 0)
                (void) close(rm->model_fd);
        if (rm->region_fd >= 0)
                (void) close(rm->region_fd);
        free(rm->settings);
        free(rm->nodes);
        free(rm->inputs);
        free(rm->outputs);
        free(rm->offsets);
        free(rm->slot_bytes);
        free(rm->io_regions);
        free(rm->io_offsets);
        free(rm->io_sizes);
        free(rm->shapes);
        free(rm->shape_ptrs);
        free(rm->shape_dims);
        free(rm);
}

/* Prepare rm's group in the running host (starting one if needed). */
static int remote_prepare(remote_t *rm, uint64_t timeout_ms, uint64_t deadline_ns, char *err, size_t err_size,
                          int32_t *ret_node) {
        host_t *h = rm->h;
        Acceld__HostRequest rq = ACCELD__HOST_REQUEST__INIT;
        Acceld__HostResponse *m = NULL;
        int fds[2] = { rm->model_fd, rm->region_fd };
        int r;

        rq.has_kind = 1;
        rq.kind = ACCELD__HOST_REQUEST__KIND__PREPARE;
        rq.has_settings = 1;
        rq.settings.data = rm->settings;
        rq.settings.len = rm->settings_size;
        rq.shapes = rm->shape_ptrs;
        rq.n_shapes = rm->n_shapes;
        rq.nodes = rm->nodes;
        rq.n_nodes = (size_t) rm->n_nodes;
        rq.inputs = rm->inputs;
        rq.n_inputs = (size_t) rm->n_inputs;
        rq.outputs = rm->outputs;
        rq.n_outputs = (size_t) rm->n_outputs;
        request_weights(&rq, rm);
        rq.offsets = rm->offsets;
        rq.n_offsets = (size_t) (rm->n_inputs + rm->n_outputs);
        rq.has_region_size = 1;
        rq.region_size = rm->region_size;
        r = host_call_checked(h, &rq, fds, 2, timeout_ms, deadline_ns, &m, err, err_size, ret_node);
        if (r < 0)
                return r;
        rm->id = m->prepared;
        rm->generation = h->generation;
        acceld__host_response__free_unpacked(m, NULL);
        return 0;
}

static int32_t *ints_dup(const int32_t *v, int32_t n) {
        int32_t *c = malloc((size_t) (n > 0 ? n : 1) * sizeof(*c));
        if (c && n > 0)
                memcpy(c, v, (size_t) n * sizeof(*c));
        return c;
}

/*
 * Compilations (supported operations, prepare) get at least this long:
 * max_execution_ms bounds executions, and a host that has just started
 * (exec, plugin load, model parse) on a busy machine may need more than a
 * short execution bound to compile.
 */
#define HOST_COMPILE_MIN_MS 10000u

static uint64_t compile_ms(void) {
        return hosts.max_call_ms > HOST_COMPILE_MIN_MS ? hosts.max_call_ms : HOST_COMPILE_MIN_MS;
}

/* The earlier of deadline_ns and this thread's request deadline (0 = none). */
static uint64_t deadline_for(uint64_t deadline_ns) {
        if (!deadline_ns || (call_deadline_ns && call_deadline_ns < deadline_ns))
                return call_deadline_ns;
        return deadline_ns;
}

/* Take h->mu, waiting no later than deadline_ns (0 = no limit): a worker
 * behind another call into the same host gives up at its request's
 * deadline. 0 or -ETIME. */
static int host_lock(host_t *h, uint64_t deadline_ns, char *err, size_t err_size) {
        struct timespec ts;
        uint64_t now;

        if (!deadline_ns) {
                pthread_mutex_lock(&h->mu);
                return 0;
        }
        /* pthread_mutex_timedlock() waits on CLOCK_REALTIME (clocklock
         * would take CLOCK_MONOTONIC, but ThreadSanitizer cannot see it):
         * convert the time left. */
        now = acc_now_ns();
        uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
        (void) clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += (time_t) (left / 1000000000ull);
        ts.tv_nsec += (long) (left % 1000000000ull);
        if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
        }
        if (pthread_mutex_timedlock(&h->mu, &ts) == 0)
                return 0;
        snprintf(err, err_size, "driver %s: the request's deadline passed while it waited for the host", h->name);
        return -ETIME;
}

/* ---- the proxy driver ---- */

static int proxy_supported_ops(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                               bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]) {
        host_t *h = d->data;
        remote_t tmp = { .model_fd = -1, .region_fd = -1 };
        Acceld__HostRequest rq = ACCELD__HOST_REQUEST__INIT;
        Acceld__HostResponse *m = NULL;
        char err[512] = "";
        int r;

        if (g->model->n_subgraphs < 1)
                return -EINVAL;
        r = settings_pack_for(s, &tmp.settings, &tmp.settings_size);
        if (r >= 0)
                r = shapes_fill(&tmp, g);
        if (r >= 0)
                r = tmp.model_fd = memfd_with(g->model->buf, g->model->size, "acceld-model");
        if (r < 0)
                goto out;
        rq.has_kind = 1;
        rq.kind = ACCELD__HOST_REQUEST__KIND__SUPPORTED_OPS;
        rq.has_settings = 1;
        rq.settings.data = tmp.settings;
        rq.settings.len = tmp.settings_size;
        rq.shapes = tmp.shape_ptrs;
        rq.n_shapes = tmp.n_shapes;
        remote_weights(&tmp, g);
        request_weights(&rq, &tmp);
        r = host_lock(h, call_deadline_ns, err, sizeof(err));
        if (r < 0)
                goto out;
        r = host_call_checked(h, &rq, &tmp.model_fd, 1, compile_ms(), call_deadline_ns, &m, err, sizeof(err), NULL);
        pthread_mutex_unlock(&h->mu);
        if (r < 0)
                goto out;
        if (m->n_supported != (size_t) g->n_nodes || m->n_reasons != (size_t) g->n_nodes) {
                r = -EPROTO;
                goto out;
        }
        for (int32_t i = 0; i < g->n_nodes; i++) {
                ret_supported[i] = m->supported[i];
                if (reasons)
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "%s", m->reasons[i]);
        }
out:
        if (r < 0 && err[0])
                log_warning("%s", err);
        if (m)
                acceld__host_response__free_unpacked(m, NULL);
        if (tmp.model_fd >= 0)
                (void) close(tmp.model_fd);
        free(tmp.settings);
        free(tmp.shapes);
        free(tmp.shape_ptrs);
        free(tmp.shape_dims);
        return r < 0 ? r : 0;
}

static int proxy_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *group,
                         const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, rt_driver_error_t *e) {
        char *err = e->message;
        size_t err_size = sizeof(e->message);
        host_t *h = d->data;
        remote_t *rm = calloc(1, sizeof(*rm));
        int32_t n_io = group->n_inputs + group->n_outputs;
        size_t size = 0;
        int r;

        if (!rm)
                return -ENOMEM;
        rm->h = h;
        rm->model_fd = rm->region_fd = -1;
        remote_weights(rm, g);
        rm->nodes = ints_dup(group->nodes, group->n_nodes);
        rm->inputs = ints_dup(group->inputs, group->n_inputs);
        rm->outputs = ints_dup(group->outputs, group->n_outputs);
        rm->offsets = calloc((size_t) n_io + 1, sizeof(*rm->offsets));
        rm->slot_bytes = calloc((size_t) n_io + 1, sizeof(*rm->slot_bytes));
        rm->io_regions = calloc((size_t) n_io + 1, sizeof(*rm->io_regions));
        rm->io_offsets = calloc((size_t) n_io + 1, sizeof(*rm->io_offsets));
        rm->io_sizes = calloc((size_t) n_io + 1, sizeof(*rm->io_sizes));
        if (!rm->nodes || !rm->inputs || !rm->outputs || !rm->offsets || !rm->slot_bytes || !rm->io_regions ||
            !rm->io_offsets || !rm->io_sizes) {
                r = -ENOMEM;
                goto fail;
        }
        rm->n_nodes = group->n_nodes;
        rm->n_inputs = group->n_inputs;
        rm->n_outputs = group->n_outputs;
        for (int32_t i = 0; i < n_io; i++) {
                int32_t t = i < group->n_inputs ? group->inputs[i] : group->outputs[i - group->n_inputs];
                bool ovf = false;
                if (t < 0 || t >= g->n_tensors) {
                        snprintf(err, err_size, "%s: group tensor %d out of range", h->name, t);
                        r = -EINVAL;
                        goto fail;
                }
                rm->slot_bytes[i] = rt_graph_tensor_bytes(&g->tensors[t], &ovf);
                if (ovf) {
                        r = -EOVERFLOW;
                        goto fail;
                }
                rm->offsets[i] = size;
                /* Aligned, with the slack kernels may read past the end, so
                 * that the host can bind its tensors to the slots in place. */
                size += (rm->slot_bytes[i] + REGION_SLACK + REGION_ALIGN - 1) / REGION_ALIGN * REGION_ALIGN;
        }
        rm->region_size = size;
        rm->region_fd = memfd_create("acceld-host-tensors", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        /* Sealed at its size before the host sees it (SIGBUS otherwise). */
        if (rm->region_fd < 0 || ftruncate(rm->region_fd, (off_t) (size ? size : 1)) < 0 ||
            fcntl(rm->region_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
                r = -errno;
                goto fail;
        }
        if (size) {
                rm->region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, rm->region_fd, 0);
                if (rm->region == MAP_FAILED) {
                        rm->region = NULL;
                        r = -errno;
                        goto fail;
                }
        }
        r = settings_pack_for(s, &rm->settings, &rm->settings_size);
        if (r < 0)
                goto fail;
        r = shapes_fill(rm, g);
        if (r < 0)
                goto fail;
        rm->model_fd = memfd_with(g->model->buf, g->model->size, "acceld-model");
        if (rm->model_fd < 0) {
                r = rm->model_fd;
                goto fail;
        }
        r = host_lock(h, deadline_for(deadline_ns), err, err_size);
        if (r < 0)
                goto fail;
        r = remote_prepare(rm, compile_ms(), deadline_for(deadline_ns), err, err_size, &e->node);
        pthread_mutex_unlock(&h->mu);
        if (r < 0)
                goto fail;
        *ret_prepared = rm;
        return 0;
fail:
        if (r == -ENOMEM && err && err_size && !err[0])
                snprintf(err, err_size, "out of memory");
        remote_free(rm);
        return r;
}

/* ---- execute: tensors in place, or through the region's slots ---- */

static bool known_has(const host_t *h, uint64_t id) {
        for (size_t i = 0; i < h->n_known; i++)
                if (h->known[i] == id)
                        return true;
        return false;
}

static void known_drop(host_t *h, size_t i) {
        memmove(&h->known[i], &h->known[i + 1], (h->n_known - i - 1) * sizeof(h->known[0]));
        h->n_known--;
}

/* Regions the host mapped that acceld no longer has, moved to `forget`;
 * and room for `need` more (the oldest are forgotten). */
static size_t known_prune(host_t *h, size_t need, uint64_t *forget) {
        uint64_t epoch = rt_shm_epoch();
        size_t n = 0;
        /* Only when a region went away since the last look. */
        for (size_t i = epoch != h->known_epoch ? h->n_known : 0; i-- > 0;)
                if (!rt_shm_alive(h->known[i])) {
                        forget[n++] = h->known[i];
                        known_drop(h, i);
                }
        h->known_epoch = epoch;
        while (h->n_known + need > HOST_KNOWN_MAX && h->n_known) {
                forget[n++] = h->known[0];
                known_drop(h, 0);
        }
        return n;
}

typedef struct pass {
        int fds[IPC_MAX_FDS_PER_FRAME];
        uint64_t ids[IPC_MAX_FDS_PER_FRAME];
        size_t n;
} pass_t;

/*
 * Where group tensor i travels: in place when its bytes (and the read slack
 * drivers may use) lie in a shared region acceld registered, which the host
 * maps once (its memory file rides this message the first time); else
 * through the PREPARE region's slot, which costs a copy each way.
 */
static void io_place(remote_t *rm, int32_t i, const rt_tensor_t *t, pass_t *pass) {
        bool ovf = false;
        size_t bytes = rt_graph_tensor_bytes(t, &ovf);
        rt_shm_ref_t ref;

        rm->io_regions[i] = 0;
        rm->io_offsets[i] = rm->offsets[i];
        rm->io_sizes[i] = rm->slot_bytes[i];
        if (!t->data || t->alloc == RT_ALLOC_CONST || ovf || bytes > SIZE_MAX - RT_BUFFER_SLACK)
                return;
        if (rt_shm_find(t->data, bytes + RT_BUFFER_SLACK, &ref) < 0 || ref.offset % RT_BUFFER_ALIGN)
                return;
        if (!known_has(rm->h, ref.id)) {
                if (pass->n == IPC_MAX_FDS_PER_FRAME)
                        return;  /* in place from the next call on */
                for (size_t k = 0; k < pass->n; k++)
                        if (pass->ids[k] == ref.id)
                                goto placed;
                pass->fds[pass->n] = ref.fd;
                pass->ids[pass->n++] = ref.id;
        }
placed:
        rm->io_regions[i] = ref.id;
        rm->io_offsets[i] = ref.offset;
        rm->io_sizes[i] = ref.avail;
}

static int proxy_execute(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size) {
        remote_t *rm = prepared;
        host_t *h = rm->h;
        int32_t n_io = rm->n_inputs + rm->n_outputs;
        Acceld__HostRequest rq = ACCELD__HOST_REQUEST__INIT;
        Acceld__HostResponse *m = NULL;
        uint64_t forget[HOST_KNOWN_MAX + IPC_MAX_FDS_PER_FRAME];
        pass_t pass = { .n = 0 };
        size_t n_forget;
        unsigned long long in_place = 0, copied = 0;
        int r = 0;

        r = host_lock(h, call_deadline_ns, err, err_size);
        if (r < 0)
                return r;
        /* A call abandoned at its deadline is finished (or the stuck host
         * killed) first: whether this group must be prepared again depends
         * on it. */
        r = host_settle(h, call_deadline_ns, err, err_size);
        if (r < 0)
                goto out;
        if (h->pid <= 0 || rm->generation != h->generation) {
                /* A new host since this group was prepared: prepare it there. */
                int32_t node = -1;
                r = remote_prepare(rm, compile_ms(), call_deadline_ns, err, err_size, &node);
                if (r < 0 && node >= 0 && node < g->n_nodes) {
                        char why[400];
                        snprintf(why, sizeof(why), "%s", err);
                        snprintf(err, err_size, "node %d (%s): %s", (int) node, rt_op_name(g->nodes[node].op), why);
                }
        }
        if (r < 0)
                goto out;
        for (int32_t i = 0; i < n_io; i++) {
                const rt_tensor_t *t = &g->tensors[i < rm->n_inputs ? rm->inputs[i] : rm->outputs[i - rm->n_inputs]];
                io_place(rm, i, t, &pass);
                if (rm->io_regions[i])
                        in_place++;
                else if (t->data && t->alloc != RT_ALLOC_CONST)
                        copied++;
                if (i < rm->n_inputs && !rm->io_regions[i] && t->data && t->alloc != RT_ALLOC_CONST) {
                        bool ovf;
                        size_t bytes = rt_graph_tensor_bytes(t, &ovf);
                        memcpy(rm->region + rm->offsets[i], t->data,
                               bytes < rm->slot_bytes[i] ? bytes : rm->slot_bytes[i]);
                }
        }
        n_forget = known_prune(h, pass.n, forget);
        for (size_t k = 0; k < pass.n; k++)
                h->known[h->n_known++] = pass.ids[k];
        rq.has_kind = 1;
        rq.kind = ACCELD__HOST_REQUEST__KIND__EXECUTE;
        rq.has_prepared = 1;
        rq.prepared = rm->id;
        rq.io_regions = rm->io_regions;
        rq.io_offsets = rm->io_offsets;
        rq.io_sizes = rm->io_sizes;
        rq.n_io_regions = rq.n_io_offsets = rq.n_io_sizes = (size_t) n_io;
        rq.new_regions = pass.ids;
        rq.n_new_regions = pass.n;
        rq.forget_regions = forget;
        rq.n_forget_regions = n_forget;
        r = host_call_checked(h, &rq, pass.fds, pass.n, hosts.max_call_ms, call_deadline_ns, &m, err, err_size, NULL);
        if (r < 0) {
                /* The host may not have mapped what this call carried
                 * (one still on it, abandoned, has it). */
                for (size_t k = 0; k < pass.n && !h->abandoned; k++)
                        for (size_t i = h->n_known; i-- > 0;)
                                if (h->known[i] == pass.ids[k])
                                        known_drop(h, i);
                goto out;
        }
        atomic_fetch_add(&h->tensors_in_place, in_place);
        atomic_fetch_add(&h->tensors_copied, copied);
        for (int32_t i = 0; i < rm->n_outputs; i++) {
                const rt_tensor_t *t = &g->tensors[rm->outputs[i]];
                size_t slot = rm->slot_bytes[rm->n_inputs + i];
                bool ovf;
                size_t bytes = rt_graph_tensor_bytes(t, &ovf);
                if (t->data && !rm->io_regions[rm->n_inputs + i])
                        memcpy(t->data, rm->region + rm->offsets[rm->n_inputs + i], bytes < slot ? bytes : slot);
        }
        acceld__host_response__free_unpacked(m, NULL);
out:
        pthread_mutex_unlock(&h->mu);
        return r;
}

/* ---- release: never on the releasing thread ---- */

static void *release_main(void *arg);

/* Queue the release of prepared group `id` of host generation
 * `generation` for the release thread (started on first use). */
static void release_push(host_t *h, uint64_t generation, uint64_t id) {
        pthread_mutex_lock(&hosts.rel_mu);
        if (!hosts.rel_started && !hosts.rel_stop)
                hosts.rel_started = pthread_create(&hosts.rel_thread, NULL, release_main, NULL) == 0;
        if (hosts.n_rel == hosts.cap_rel) {
                size_t cap = hosts.cap_rel ? hosts.cap_rel * 2 : 16;
                release_t *v = realloc(hosts.rel, cap * sizeof(*v));
                if (!v) {
                        /* The host keeps the group until it restarts. */
                        pthread_mutex_unlock(&hosts.rel_mu);
                        return;
                }
                hosts.rel = v;
                hosts.cap_rel = cap;
        }
        hosts.rel[hosts.n_rel++] = (release_t) { .h = h, .generation = generation, .id = id };
        pthread_cond_signal(&hosts.rel_cond);
        pthread_mutex_unlock(&hosts.rel_mu);
}

/* Release one queued group if its host is free right now: true when done
 * with it (released, or its host has gone since), false to try later. */
static bool release_one(const release_t *x) {
        host_t *h = x->h;
        Acceld__HostRequest rq = ACCELD__HOST_REQUEST__INIT;
        Acceld__HostResponse *m = NULL;
        char err[256];

        if (pthread_mutex_trylock(&h->mu) != 0)
                return false;
        if (h->pid > 0 && h->abandoned &&
            host_settle(h, acc_now_ns() + HOST_RELEASE_SETTLE_MS * 1000000ull, err, sizeof(err)) < 0) {
                pthread_mutex_unlock(&h->mu);
                return false;
        }
        if (h->pid > 0 && x->generation == h->generation && !atomic_load(&hosts.stopping)) {
                rq.has_kind = 1;
                rq.kind = ACCELD__HOST_REQUEST__KIND__RELEASE;
                rq.has_prepared = 1;
                rq.prepared = x->id;
                if (host_call(h, &rq, NULL, 0, HOST_RELEASE_MS, 0, &m, err, sizeof(err)) == 0)
                        acceld__host_response__free_unpacked(m, NULL);
        }
        pthread_mutex_unlock(&h->mu);
        return true;
}

/* The release thread: sends the queued releases to hosts that are free,
 * and comes back for the busy ones. Only it waits on a host for them. */
static void *release_main(void *arg) {
        (void) arg;
        pthread_mutex_lock(&hosts.rel_mu);
        for (;;) {
                release_t *v;
                size_t n, kept = 0;

                while (!hosts.rel_stop && hosts.n_rel == 0)
                        pthread_cond_wait(&hosts.rel_cond, &hosts.rel_mu);
                if (hosts.rel_stop)
                        break;
                v = hosts.rel;
                n = hosts.n_rel;
                hosts.rel = NULL;
                hosts.n_rel = hosts.cap_rel = 0;
                pthread_mutex_unlock(&hosts.rel_mu);
                for (size_t i = 0; i < n; i++)
                        if (!release_one(&v[i]))
                                v[kept++] = v[i];
                pthread_mutex_lock(&hosts.rel_mu);
                /* Put back what is left, ahead of what came meanwhile. */
                if (kept) {
                        release_t *w = realloc(v, (kept + hosts.n_rel) * sizeof(*w));
                        if (w) {
                                if (hosts.n_rel)
                                        memcpy(w + kept, hosts.rel, hosts.n_rel * sizeof(*w));
                                free(hosts.rel);
                                hosts.rel = w;
                                hosts.n_rel += kept;
                                hosts.cap_rel = hosts.n_rel;
                                v = NULL;
                        }
                }
                free(v);
                if (kept && !hosts.rel_stop) {
                        struct timespec ts;
                        (void) clock_gettime(CLOCK_REALTIME, &ts);
                        ts.tv_nsec += HOST_RELEASE_RETRY_MS * 1000000l;
                        if (ts.tv_nsec >= 1000000000l) {
                                ts.tv_sec++;
                                ts.tv_nsec -= 1000000000l;
                        }
                        (void) pthread_cond_timedwait(&hosts.rel_cond, &hosts.rel_mu, &ts);
                }
        }
        pthread_mutex_unlock(&hosts.rel_mu);
        return NULL;
}

/*
 * Called wherever an interpreter is freed, the loop thread included: it
 * never waits for the host (which may be busy with another client's call
 * for up to max_execution_ms). The group is released by the release
 * thread; acceld's side of it goes now.
 */
static void proxy_release(void *prepared) {
        remote_t *rm = prepared;
        if (!rm)
                return;
        if (rm->generation && !atomic_load(&hosts.stopping))
                release_push(rm->h, rm->generation, rm->id);
        remote_free(rm);
}

/* ---- the set ---- */

static void host_free(host_t *h) {
        if (!h)
                return;
        if (h->pid > 0) {
                (void) kill(-h->pid, SIGKILL);
                while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                (void) close(h->fd);
                ipc_reader_done(&h->rd);
        }
        pthread_mutex_destroy(&h->mu);
        free(h);
}

static int so_filter(const struct dirent *e) {
        size_t n = strlen(e->d_name);
        return n > 3 && strcmp(e->d_name + n - 3, ".so") == 0;
}

/* Start the host of one plugin (or built-in driver: dir NULL, file
 * "builtin:NAME") and register its proxy in place of any driver of that
 * name. */
static int host_add(const char *dir, const char *file) {
        Acceld__HostRequest rq = ACCELD__HOST_REQUEST__INIT;
        Acceld__HostResponse *m = NULL;
        char err[512] = "";
        host_t *h = calloc(1, sizeof(*h)), **v;
        int r;

        if (!h)
                return -ENOMEM;
        pthread_mutex_init(&h->mu, NULL);
        h->fd = -1;
        if (dir)
                snprintf(h->path, sizeof(h->path), "%s/%s", dir, file);
        else
                snprintf(h->path, sizeof(h->path), "%s", file);
        snprintf(h->name, sizeof(h->name), "%s", file);
        rq.has_kind = 1;
        rq.kind = ACCELD__HOST_REQUEST__KIND__HELLO;
        pthread_mutex_lock(&h->mu);
        r = host_call_checked(h, &rq, NULL, 0, HOST_HELLO_MS, 0, &m, err, sizeof(err), NULL);
        pthread_mutex_unlock(&h->mu);
        if (r < 0) {
                log_warning("plugin %s not loaded: %s", h->path, err);
                host_free(h);
                return r;
        }
        snprintf(h->name, sizeof(h->name), "%s", m->name ? m->name : file);
        snprintf(h->version, sizeof(h->version), "%s", m->version ? m->version : "");
        h->drv = (rt_driver_t) {
                .abi_version = RT_DRIVER_ABI_VERSION,
                .name = h->name,
                .version = h->version,
                .type = m->has_type ? (rt_driver_type_t) m->type : RT_DRIVER_TYPE_OTHER,
                .data = h,
                .supported_ops = proxy_supported_ops,
                .prepare = proxy_prepare,
                .execute = proxy_execute,
                .release = proxy_release,
        };
        acceld__host_response__free_unpacked(m, NULL);
        v = realloc(hosts.v, (hosts.n + 1) * sizeof(*v));
        if (!v) {
                host_free(h);
                return -ENOMEM;
        }
        hosts.v = v;
        if (!dir)
                (void) rt_driver_unregister(h->name);
        r = rt_driver_register(&h->drv);
        if (r < 0) {
                log_warning("plugin %s not registered: driver %s: %s", h->path, h->name, strerror(-r));
                host_free(h);
                return r;
        }
        hosts.v[hosts.n++] = h;
        log_info("driver %s %s runs in its own host (pid %d, %s)", h->name, h->version, (int) h->pid, h->path);
        return 0;
}

static int hosts_setup(uint64_t max_call_ms) {
        ssize_t n;

        if (max_call_ms)
                hosts.max_call_ms = max_call_ms;
        else if (!hosts.max_call_ms)
                hosts.max_call_ms = 10000;
        if (hosts.exe[0])
                return 0;
        n = readlink("/proc/self/exe", hosts.exe, sizeof(hosts.exe) - 1);
        if (n <= 0)
                return -errno;
        hosts.exe[n] = 0;
        return 0;
}

int daemon_hosts_start_xnnpack(void) {
        int r = hosts_setup(0);
        if (r < 0)
                return r;
        if (!rt_driver_xnnpack())
                return -ENODEV;
        return host_add(NULL, DAEMON_HOST_BUILTIN "xnnpack");
}

int daemon_hosts_start(const char *dir, uint64_t max_call_ms) {
        struct dirent **names = NULL;
        int count = 0, k;

        k = hosts_setup(max_call_ms);
        if (k < 0)
                return k;
        k = scandir(dir, &names, so_filter, alphasort);
        if (k < 0)
                return -errno;
        for (int i = 0; i < k; i++) {
                if (host_add(dir, names[i]->d_name) == 0)
                        count++;
                free(names[i]);
        }
        free(names);
        return count;
}

void daemon_hosts_kill(void) {
        atomic_store(&hosts.stopping, true);
        for (size_t i = 0; i < hosts.n; i++) {
                pid_t pid = atomic_load(&hosts.v[i]->live_pid);
                if (pid > 0)
                        (void) kill(-pid, SIGKILL);
        }
}

void daemon_hosts_free(void) {
        bool started;

        daemon_hosts_kill();
        pthread_mutex_lock(&hosts.rel_mu);
        hosts.rel_stop = true;
        started = hosts.rel_started;
        hosts.rel_started = false;
        pthread_cond_signal(&hosts.rel_cond);
        pthread_mutex_unlock(&hosts.rel_mu);
        /* It waits on a host at most HOST_RELEASE_MS, and the hosts are dead. */
        if (started)
                (void) pthread_join(hosts.rel_thread, NULL);
        free(hosts.rel);
        hosts.rel = NULL;
        hosts.n_rel = hosts.cap_rel = 0;
        for (size_t i = 0; i < hosts.n; i++) {
                (void) rt_driver_unregister(hosts.v[i]->name);
                host_free(hosts.v[i]);
        }
        free(hosts.v);
        hosts.v = NULL;
        hosts.n = 0;
}

size_t daemon_hosts_stats(daemon_host_stats_t *ret, size_t max) {
        for (size_t i = 0; i < hosts.n && i < max; i++) {
                host_t *h = hosts.v[i];
                snprintf(ret[i].name, sizeof(ret[i].name), "%s", h->name);
                ret[i].pid = (int) atomic_load(&h->live_pid);
                ret[i].starts = atomic_load(&h->starts);
                ret[i].deaths = atomic_load(&h->deaths);
                ret[i].tensors_in_place = atomic_load(&h->tensors_in_place);
                ret[i].tensors_copied = atomic_load(&h->tensors_copied);
                ret[i].last_death[0] = 0;
                /* A call may hold the host for max_execution_ms: never wait for it here. */
                if (pthread_mutex_trylock(&h->mu) == 0) {
                        snprintf(ret[i].last_death, sizeof(ret[i].last_death), "%s", h->last_death);
                        pthread_mutex_unlock(&h->mu);
                }
        }
        return hosts.n;
}

bool daemon_hosts_owns(const char *driver) {
        for (size_t i = 0; i < hosts.n; i++)
                if (strcmp(hosts.v[i]->name, driver) == 0)
                        return true;
        return false;
}

int daemon_hosts_last_death(const char *driver, int *ret_signal, int *ret_exit) {
        for (size_t i = 0; i < hosts.n; i++) {
                host_t *h = hosts.v[i];
                if (strcmp(h->name, driver) != 0)
                        continue;
                /* Called right after the failed call, by the same worker: the
                 * host is free, or busy with a newer call (then 0/-1). */
                if (pthread_mutex_trylock(&h->mu) != 0) {
                        *ret_signal = 0;
                        *ret_exit = -1;
                        return 0;
                }
                *ret_signal = h->last_signal;
                *ret_exit = h->last_exit;
                pthread_mutex_unlock(&h->mu);
                return 0;
        }
        return -ENOENT;
}
