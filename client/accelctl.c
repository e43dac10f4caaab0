/* SPDX-License-Identifier: Apache-2.0 */
/* accelctl: the operator's command-line tool for acceld. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accelctl-bench.h"
#include "accelctl-local.h"
#include "accelctl.h"
#include "config.h"

static const char usage[] =
        "Usage: accelctl [--socket PATH] [--json] COMMAND [ARG]...\n"
        "\n"
        "Commands talking to acceld:\n"
        "  status                 uptime, connections, requests served, limits\n"
        "  caps                   CPU, memory and inference backends\n"
        "  run MODEL [...]        run a model through acceld (see run --help)\n"
        "  ops MODEL              which driver supports each node\n"
        "  models                 models acceld holds\n"
        "  cache [list|clear]     acceld's weights cache (operators)\n"
        "  bench MODEL            benchmark acceleration settings (progress, results table)\n"
        "  events                 recorded benchmark events (--model, --type, --limit, ...);\n"
        "                         --evaluations: stored evaluation results (accelctl eval)\n"
        "  best MODEL             the chosen settings and why (--preference P)\n"
        "  export FILE            write events as length-delimited BenchmarkEvent protobufs\n"
        "Commands running in-process (no daemon needed):\n"
        "  inspect MODEL          describe a .tflite model\n"
        "  run --local MODEL ...  run a model with the in-process runtime\n"
        "Evaluation (TFLite's evaluation stages; through acceld, or --local in-process):\n"
        "  eval diff MODEL --settings JSON       inference-diff against the CPU reference\n"
        "  eval topk MODEL --images DIR --ground-truth FILE      top-K accuracy\n"
        "  eval detection MODEL --images DIR --ground-truth FILE COCO average precision\n"
        "\n"
        "Options:\n"
        "  --socket PATH          acceld's socket (default: $ACCELD_SOCKET, else\n"
        "                         /run/acceld/acceld.sock as root, $XDG_RUNTIME_DIR/acceld.sock)\n"
        "  --json                 machine-readable output\n"
        "  -h, --help             this help\n"
        "  --version              accelctl's version\n";

/* argv with "--json" inserted after argv[0], for in-process commands given
 * a global --json. The array is leaked on purpose: it lives until exit. */
static char **argv_with_json(int argc, char **argv) {
        char **n = calloc((size_t) argc + 2, sizeof(char *));

        if (!n)
                return NULL;
        n[0] = argv[0];
        n[1] = (char *) "--json";
        for (int i = 1; i < argc; i++)
                n[i + 1] = argv[i];
        return n;
}

static int run_local(int argc, char **argv, const accelctl_opts_t *o,
                     int (*fn)(int, char **)) {
        char **av = argv;

        if (o->json) {
                av = argv_with_json(argc, argv);
                if (!av) {
                        fprintf(stderr, "accelctl: out of memory\n");
                        return 1;
                }
                argc++;
        }
        return fn(argc, av);
}

static int accelctl_main(int argc, char **argv) {
        accelctl_opts_t o = {};
        int i;

        for (i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (a[0] != '-')
                        break;
                if (strcmp(a, "--json") == 0)
                        o.json = true;
                else if (strcmp(a, "--socket") == 0) {
                        if (i + 1 >= argc) {
                                fprintf(stderr, "accelctl: --socket needs a path\n");
                                return 2;
                        }
                        o.socket = argv[++i];
                } else if (strncmp(a, "--socket=", 9) == 0)
                        o.socket = a + 9;
                else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        printf("%s", usage);
                        return 0;
                } else if (strcmp(a, "--version") == 0) {
                        printf("accelctl %s (protocol %d)\n", ACCELD_VERSION, ACCELD_PROTOCOL_VERSION);
                        return 0;
                } else {
                        fprintf(stderr, "accelctl: unknown option '%s'\n%s", a, usage);
                        return 2;
                }
        }
        if (i >= argc) {
                fprintf(stderr, "%s", usage);
                return 2;
        }

        argc -= i;
        argv += i;
        if (strcmp(argv[0], "status") == 0)
                return accelctl_status(argc, argv, &o);
        if (strcmp(argv[0], "caps") == 0 || strcmp(argv[0], "capabilities") == 0)
                return accelctl_caps(argc, argv, &o);
        if (strcmp(argv[0], "inspect") == 0)
                return run_local(argc, argv, &o, accelctl_local_inspect);
        if (strcmp(argv[0], "run") == 0) {
                for (int k = 1; k < argc; k++)
                        if (strcmp(argv[k], "--local") == 0)
                                return run_local(argc, argv, &o, accelctl_local_run);
                return accelctl_run(argc, argv, &o);
        }
        if (strcmp(argv[0], "ops") == 0)
                return accelctl_ops(argc, argv, &o);
        if (strcmp(argv[0], "models") == 0)
                return accelctl_models(argc, argv, &o);
        if (strcmp(argv[0], "cache") == 0)
                return accelctl_cache(argc, argv, &o);
        /* Benchmarks */
        if (strcmp(argv[0], "bench") == 0)
                return accelctl_bench(argc, argv, &o);
        if (strcmp(argv[0], "events") == 0)
                return accelctl_events(argc, argv, &o);
        if (strcmp(argv[0], "best") == 0)
                return accelctl_best(argc, argv, &o);
        if (strcmp(argv[0], "export") == 0)
                return accelctl_export(argc, argv, &o);
        /* Evaluation stages */
        if (strcmp(argv[0], "eval") == 0)
                return accelctl_eval(argc, argv, &o);
        fprintf(stderr, "accelctl: unknown command '%s'\n%s", argv[0], usage);
        return 2;
}

/*
 * With --json anywhere on the command line, a failure is JSON too: what the
 * command wrote to stderr becomes {"status": ..., "message": ...} on
 * stdout (status: acceld's Status name when acceld answered, else
 * CLIENT_ERROR, or USAGE for a usage error), so scripts parse one format.
 */
int main(int argc, char **argv) {
        bool json = false;
        char *buf = NULL;
        size_t len = 0;
        FILE *saved = stderr, *mem = NULL;
        int rc;

        for (int i = 1; i < argc; i++)
                json |= strcmp(argv[i], "--json") == 0;
        if (json && (mem = open_memstream(&buf, &len)))
                stderr = mem;
        rc = accelctl_main(argc, argv);
        if (!mem)
                return rc;
        (void) fclose(mem);
        stderr = saved;
        if (rc != 0 && buf && len) {
                json_object *o = json_object_new_object();
                accel_status_t st = accel_last_status();

                while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
                        buf[--len] = '\0';
                json_object_object_add(o, "status", json_object_new_string(
                        st != ACCEL_STATUS_NONE ? accel_status_to_string(st) : rc == 2 ? "USAGE" : "CLIENT_ERROR"));
                json_object_object_add(o, "message", json_object_new_string(buf));
                json_object_object_add(o, "exit_code", json_object_new_int(rc));
                (void) accelctl_json_print(o);
        } else if (buf && len)
                fputs(buf, stderr);
        free(buf);
        return rc;
}
