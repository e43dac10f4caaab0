/* SPDX-License-Identifier: Apache-2.0 */
/* The faulty plugin's acceld set-up, shared by the driver-host tests. */
#include <check.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness-faulty.h"
#include "tflite-builder.h"

static char plugin_env[600];
static const char *const envs[] = { plugin_env, NULL };
static char config_path[400];

bool harness_faulty_init(int argc, char **argv) {
        char *copy;

        if (argc < 4) {
                fprintf(stderr, "usage: %s ACCELD ACCELCTL FAULTY_PLUGIN\n", argv[0]);
                return false;
        }
        copy = strdup(argv[3]);
        if (!copy)
                return false;
        (void) snprintf(plugin_env, sizeof(plugin_env), "ACCELD_PLUGIN_DIR=%s", dirname(copy));
        free(copy);
        return true;
}

const char *const *harness_faulty_env(void) {
        return envs;
}

const char *harness_faulty_config(harness_daemon_t *d, const char *config) {
        FILE *f;

        (void) snprintf(config_path, sizeof(config_path), "%s/acceld.conf", d->dir);
        f = fopen(config_path, "we");
        ck_assert_ptr_nonnull(f);
        fputs(config, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(chmod(config_path, 0644), 0);
        return config_path;
}

void harness_faulty_up(harness_daemon_t *d, const char *config) {
        const char *args[] = { "--config", NULL, NULL };

        harness_prepare(d);
        args[1] = harness_faulty_config(d, config);
        harness_start(d, args, envs, -1);
        harness_wait_ready(d, d->sock);
}

char *harness_faulty_add_model(harness_daemon_t *d) {
        tfb_t *b = tfb_new();
        int32_t a = tfb_tensor(b, RT_TYPE_FLOAT32, "a", 2, TFB_DIMS(1, 4));
        int32_t c = tfb_tensor(b, RT_TYPE_FLOAT32, "b", 2, TFB_DIMS(1, 4));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 2, TFB_DIMS(1, 4));
        uint8_t *bytes;
        size_t size;
        char *path;

        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = TFB_IDS(a, c),
                                    .n_inputs = 2, .outputs = TFB_IDS(y), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(a, c), 2, TFB_IDS(y), 1);
        bytes = tfb_finish(b, &size);
        tfb_free(b);
        ck_assert_ptr_nonnull(bytes);
        path = harness_write_file(d, "add.tflite", bytes, size);
        free(bytes);
        ck_assert_int_eq(chmod(path, 0644), 0);
        return path;
}
