/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mutate: push mutated real models through acceld (or the in-process
 * runtime) and count what happens to them (mutator.h).
 *
 *   mutate [--seed S] [--first I] (--count N | --seconds T)
 *          [--acceld PATH [--config FILE] | --socket PATH]
 *          [--save DIR] [--timeout-ms MS] [--max-model-bytes B] [--exclude NAME]...
 *          MODEL_DIR
 *
 * With --acceld it starts that acceld on a temporary socket and state
 * directory (and --config, else /dev/null), runs every mutant through it
 * (PrepareModel, AllocateTensors, Execute, in a child bounded by
 * --timeout-ms), checks after each that acceld is still alive, and starts
 * it again after a death. --socket uses a running acceld (no restarts).
 * Without either, each mutant runs in the in-process runtime in a forked
 * child. A mutant that kills acceld or the in-process child, or outlives
 * the timeout, is saved to DIR (default ./mutants) with its edits.
 * --exclude leaves out the models whose names contain NAME (those whose
 * reference-kernel run alone nears the timeout on a slow machine).
 *
 * The last line is the summary:
 *   mutants N prepared P refused R executed E exec-failed F deaths D hangs H
 * and the exit status is 1 when D or H is not 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mutator.h"

typedef struct daemon_proc {
        const char *exe;
        const char *config;
        char dir[256];
        char sock[320];
        char log[320];
        pid_t pid;
} daemon_proc_t;

/* SIGINT / SIGTERM end the run after the current mutant, so that the
 * acceld it started is stopped and the summary printed. */
static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

static uint64_t now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec;
}

static bool can_connect(const char *path) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return false;
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof(a.sun_path)) {
                close(fd);
                return false;
        }
        memcpy(a.sun_path, path, strlen(path) + 1);
        bool ok = connect(fd, (struct sockaddr *) &a, sizeof(a)) == 0;
        close(fd);
        return ok;
}

static int daemon_start(daemon_proc_t *d) {
        char state[340];
        (void) snprintf(state, sizeof(state), "%s/state", d->dir);
        unlink(d->sock);
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (fd >= 0) {
                        dup2(fd, STDOUT_FILENO);
                        dup2(fd, STDERR_FILENO);
                }
                execl(d->exe, d->exe, "--socket", d->sock, "--state-dir", state, "--config",
                      d->config ? d->config : "/dev/null", "--log-level", "warning", (char *) NULL);
                _exit(127);
        }
        d->pid = pid;
        for (int i = 0; i < 3000; i++) {
                int status;
                if (waitpid(pid, &status, WNOHANG) == pid) {
                        d->pid = 0;
                        fprintf(stderr, "mutate: acceld exited at start-up (see %s)\n", d->log);
                        return -ECHILD;
                }
                if (can_connect(d->sock))
                        return 0;
                usleep(10 * 1000);
        }
        fprintf(stderr, "mutate: acceld did not listen within 30 s\n");
        return -ETIMEDOUT;
}

static void daemon_stop(daemon_proc_t *d) {
        if (d->pid <= 0)
                return;
        kill(d->pid, SIGTERM);
        for (int i = 0; i < 1000; i++) {
                if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
                        d->pid = 0;
                        return;
                }
                usleep(10 * 1000);
        }
        kill(d->pid, SIGKILL);
        waitpid(d->pid, NULL, 0);
        d->pid = 0;
}

/* Whether acceld died since the last look; its wait status in *ret. */
static bool daemon_died(daemon_proc_t *d, int *ret_status) {
        return d->pid > 0 && waitpid(d->pid, ret_status, WNOHANG) == d->pid;
}

static void usage(const char *argv0) {
        fprintf(stderr,
                "usage: %s [--seed S] [--first I] (--count N | --seconds T) [--acceld PATH [--config FILE] | "
                "--socket PATH] [--save DIR] [--timeout-ms MS] [--max-model-bytes B] [--exclude NAME]... MODEL_DIR\n",
                argv0);
}

int main(int argc, char **argv) {
        static const struct option longopts[] = {
                { "seed", required_argument, NULL, 's' },
                { "first", required_argument, NULL, 'f' },
                { "count", required_argument, NULL, 'n' },
                { "seconds", required_argument, NULL, 't' },
                { "acceld", required_argument, NULL, 'a' },
                { "config", required_argument, NULL, 'c' },
                { "socket", required_argument, NULL, 'S' },
                { "save", required_argument, NULL, 'o' },
                { "timeout-ms", required_argument, NULL, 'T' },
                { "max-model-bytes", required_argument, NULL, 'm' },
                { "exclude", required_argument, NULL, 'x' },
                { "verbose", no_argument, NULL, 'v' },
                { NULL, 0, NULL, 0 },
        };
        uint64_t seed = 1, first = 0, count = 0, seconds = 0;
        unsigned timeout_ms = 120000;
        const char *exclude[17] = { NULL };
        size_t n_exclude = 0;
        size_t max_bytes = 0;
        const char *save = "mutants", *socket_path = NULL;
        bool verbose = false;
        daemon_proc_t d = { 0 };
        int opt;
        while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
                switch (opt) {
                case 's': seed = strtoull(optarg, NULL, 0); break;
                case 'f': first = strtoull(optarg, NULL, 0); break;
                case 'n': count = strtoull(optarg, NULL, 0); break;
                case 't': seconds = strtoull(optarg, NULL, 0); break;
                case 'a': d.exe = optarg; break;
                case 'c': d.config = optarg; break;
                case 'S': socket_path = optarg; break;
                case 'o': save = optarg; break;
                case 'T': timeout_ms = (unsigned) strtoul(optarg, NULL, 0); break;
                case 'm': max_bytes = (size_t) strtoull(optarg, NULL, 0); break;
                case 'x':
                        if (n_exclude + 1 < sizeof(exclude) / sizeof(exclude[0]))
                                exclude[n_exclude++] = optarg;
                        break;
                case 'v': verbose = true; break;
                default: usage(argv[0]); return 2;
                }
        }
        if (optind + 1 != argc || (!count && !seconds) || (d.exe && socket_path)) {
                usage(argv[0]);
                return 2;
        }
        signal(SIGPIPE, SIG_IGN);
        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        mut_corpus_t corpus;
        int r = mut_corpus_load(&corpus, argv[optind], max_bytes, exclude);
        if (r < 0) {
                fprintf(stderr, "mutate: no models in %s: %s\n", argv[optind], strerror(-r));
                return 77;
        }
        if (d.exe) {
                (void) snprintf(d.dir, sizeof(d.dir), "%s/acceld-mutate.XXXXXX",
                                getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
                if (!mkdtemp(d.dir)) {
                        perror("mkdtemp");
                        return 1;
                }
                (void) snprintf(d.sock, sizeof(d.sock), "%s/acceld.sock", d.dir);
                (void) mkdir(save, 0755);
                (void) snprintf(d.log, sizeof(d.log), "%s/acceld-%llu.log", save, (unsigned long long) seed);
                if (daemon_start(&d) < 0)
                        return 1;
                socket_path = d.sock;
        }
        printf("mutate: %zu models, seed %llu, first %llu, %s\n", corpus.n, (unsigned long long) seed,
               (unsigned long long) first, socket_path ? "through acceld" : "in-process");
        fflush(stdout);

        uint64_t counts[MUT_HUNG + 1] = { 0 }, deaths = 0, n = 0, start = now_s();
        for (uint64_t i = first; !stop && (count ? n < count : now_s() - start < seconds); i++, n++) {
                mut_mutant_t m;
                if (mut_mutant_make(&corpus, seed, i, &m) < 0) {
                        fprintf(stderr, "mutate: out of memory\n");
                        return 1;
                }
                mut_outcome_t o = mut_run(&m, socket_path, timeout_ms);
                counts[o]++;
                int status = 0;
                bool died = d.exe ? daemon_died(&d, &status) : (!socket_path && o == MUT_CRASHED);
                if (d.exe && !died && o == MUT_HUNG && !mut_daemon_answers(socket_path, 10000)) {
                        /* Wedged rather than dead: a hang of the daemon itself. */
                        daemon_stop(&d);
                        died = true;
                }
                if (verbose)
                        printf("%llu %s %s %s\n", (unsigned long long) i, m.model->name,
                               mut_outcome_name(o), m.what);
                if (died || o == MUT_HUNG) {
                        const char *kind = died ? "death" : "hang";
                        deaths += died;
                        (void) mut_mutant_save(&m, save, kind, seed, i);
                        if (died && d.exe && WIFSIGNALED(status))
                                printf("mutate: %s: mutant %llu (%s: %s) killed acceld with signal %d\n", kind,
                                       (unsigned long long) i, m.model->name, m.what, WTERMSIG(status));
                        else
                                printf("mutate: %s: mutant %llu (%s: %s)\n", kind, (unsigned long long) i,
                                       m.model->name, m.what);
                        fflush(stdout);
                        if (died && d.exe && daemon_start(&d) < 0) {
                                mut_mutant_free(&m);
                                n++;
                                break;
                        }
                }
                mut_mutant_free(&m);
                if ((n + 1) % 100 == 0) {
                        printf("mutate: %llu done (%llu prepared, %llu executed, %llu deaths, %llu hangs) in %llu s\n",
                               (unsigned long long) (n + 1),
                               (unsigned long long) (counts[MUT_EXECUTED] + counts[MUT_ALLOCATE_FAILED] +
                                                     counts[MUT_EXECUTE_FAILED]),
                               (unsigned long long) counts[MUT_EXECUTED], (unsigned long long) deaths,
                               (unsigned long long) counts[MUT_HUNG], (unsigned long long) (now_s() - start));
                        fflush(stdout);
                }
        }
        if (d.exe) {
                daemon_stop(&d);
                char state[340];
                (void) snprintf(state, sizeof(state), "rm -rf '%s'", d.dir);
                if (system(state) != 0)
                        fprintf(stderr, "mutate: could not remove %s\n", d.dir);
        }
        uint64_t prepared = counts[MUT_EXECUTED] + counts[MUT_ALLOCATE_FAILED] + counts[MUT_EXECUTE_FAILED];
        printf("mutants %llu prepared %llu refused %llu executed %llu exec-failed %llu alloc-failed %llu "
               "client-errors %llu deaths %llu hangs %llu (%llu s)\n",
               (unsigned long long) n, (unsigned long long) prepared,
               (unsigned long long) counts[MUT_PREPARE_REFUSED], (unsigned long long) counts[MUT_EXECUTED],
               (unsigned long long) counts[MUT_EXECUTE_FAILED], (unsigned long long) counts[MUT_ALLOCATE_FAILED],
               (unsigned long long) counts[MUT_CLIENT_ERROR], (unsigned long long) deaths,
               (unsigned long long) counts[MUT_HUNG], (unsigned long long) (now_s() - start));
        mut_corpus_free(&corpus);
        return deaths || counts[MUT_HUNG] ? 1 : 0;
}
