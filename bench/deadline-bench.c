/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deadline-bench: what one client's short deadlines cost the others on a
 * shared driver host (docs/performance.md, "Deadlines on a shared host").
 * Needs a running acceld (--socket).
 *
 *   deadline-bench MODEL --socket S [--settings JSON] [--deadline-ms 30] [--seconds 45] [--others 1]
 *
 * One client process invokes MODEL in a loop with a --deadline-ms deadline
 * on every invoke; --others client processes invoke it with the same
 * settings and no deadline, at the same time. Output is one JSON object on
 * stdout: per client, invokes that succeeded, missed their deadline, or
 * failed otherwise (with the first such error).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "accel/accel.h"

typedef struct counts {
        unsigned long ok, missed, failed;
        char first_error[240];
} counts_t;

static void client(const char *model, const char *sock, const char *settings, uint32_t deadline_ms, double seconds,
                   counts_t *c) {
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        uint64_t end;

        if (accel_model_create_from_file(model, &m) < 0 || accel_interp_options_set_socket(o, sock) < 0 ||
            accel_interp_options_set_settings_json(o, settings) < 0 ||
            (deadline_ms && accel_interp_options_set_deadline_ms(o, deadline_ms) < 0) ||
            accel_interp_create(m, o, &it) < 0 || accel_interp_allocate_tensors(it) < 0) {
                (void) snprintf(c->first_error, sizeof(c->first_error), "prepare: %s", accel_last_error());
                c->failed++;
                return;
        }
        for (int32_t k = 0; k < accel_interp_input_count(it); k++) {
                accel_tensor_t *t = accel_interp_input_tensor(it, k);
                memset(accel_tensor_data(t), 0, accel_tensor_byte_size(t));
        }
        end = acc_now_ns() + (uint64_t) (seconds * 1e9);
        while (acc_now_ns() < end) {
                if (accel_interp_invoke(it) == 0) {
                        c->ok++;
                        continue;
                }
                accel_status_t st = accel_last_status();
                if (st == ACCEL_STATUS_MISSED_DEADLINE_TRANSIENT || st == ACCEL_STATUS_MISSED_DEADLINE_PERSISTENT) {
                        c->missed++;
                        continue;
                }
                if (!c->failed++)
                        (void) snprintf(c->first_error, sizeof(c->first_error), "%s", accel_last_error());
        }
        (void) accel_interp_delete(it);
        (void) accel_interp_options_delete(o);
        (void) accel_model_delete(m);
}

static void json_str(const char *s) {
        putchar('"');
        for (; *s; s++) {
                if (*s == '"' || *s == '\\')
                        putchar('\\');
                putchar((unsigned char) *s >= 0x20 ? *s : ' ');
        }
        putchar('"');
}

int main(int argc, char **argv) {
        const char *model = NULL, *sock = NULL, *settings = "{\"delegate\":\"XNNPACK\"}";
        uint32_t deadline_ms = 30;
        double seconds = 45;
        int others = 1;
        counts_t *c;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
                        sock = argv[++i];
                else if (strcmp(argv[i], "--settings") == 0 && i + 1 < argc)
                        settings = argv[++i];
                else if (strcmp(argv[i], "--deadline-ms") == 0 && i + 1 < argc)
                        deadline_ms = (uint32_t) strtoul(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
                        seconds = strtod(argv[++i], NULL);
                else if (strcmp(argv[i], "--others") == 0 && i + 1 < argc)
                        others = atoi(argv[++i]);
                else if (argv[i][0] != '-' && !model)
                        model = argv[i];
                else {
                        fprintf(stderr, "usage: deadline-bench MODEL --socket S [--settings JSON] [--deadline-ms N] "
                                        "[--seconds T] [--others N]\n");
                        return 2;
                }
        }
        if (!model || !sock || others < 0 || others > 64) {
                fprintf(stderr, "deadline-bench: MODEL and --socket are needed (--others 0..64)\n");
                return 2;
        }
        /* One result slot per client process, shared with them. */
        c = mmap(NULL, sizeof(*c) * (size_t) (others + 1), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                 0);
        if (c == MAP_FAILED) {
                perror("mmap");
                return 1;
        }
        memset(c, 0, sizeof(*c) * (size_t) (others + 1));
        for (int k = 0; k <= others; k++) {
                pid_t pid = fork();
                if (pid < 0) {
                        perror("fork");
                        return 1;
                }
                if (pid == 0) {
                        client(model, sock, settings, k == 0 ? deadline_ms : 0, seconds, &c[k]);
                        _exit(0);
                }
        }
        while (wait(NULL) > 0 || errno == EINTR)
                ;
        printf("{\"mode\": \"deadline\", \"model\": ");
        json_str(model);
        printf(", \"settings\": ");
        json_str(settings);
        printf(", \"deadline_ms\": %u, \"seconds\": %.1f, \"clients\": [", deadline_ms, seconds);
        for (int k = 0; k <= others; k++) {
                printf("%s{\"deadline_ms\": %u, \"ok\": %lu, \"missed_deadline\": %lu, \"failed\": %lu, \"first_error\": ",
                       k ? ", " : "", k == 0 ? deadline_ms : 0, c[k].ok, c[k].missed, c[k].failed);
                json_str(c[k].first_error);
                printf("}");
        }
        printf("]}\n");
        return 0;
}
