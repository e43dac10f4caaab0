/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test-only ops linked into acceld-test (never into acceld): the custom op
 * "AcceldTestGate" copies its float input to its output, but first waits
 * until the file named by $ACCELD_TEST_GATE exists (at most 10 s). With one
 * worker thread this holds the queue still while a test sends requests, so
 * priority and deadline order become deterministic.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel.h"
#include "models.h"

static int gate_prepare(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);

        if (!in || in->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "AcceldTestGate takes one float32 input");
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static int gate_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        const char *gate = getenv("ACCELD_TEST_GATE");

        for (int i = 0; gate && i < 10000 && access(gate, F_OK) < 0; i++) {
                struct timespec ts = { 0, 1000000 };

                nanosleep(&ts, NULL);
        }
        memcpy(out->data, in->data, rt_tensor_count(in) * sizeof(float));
        return 0;
}

static const rt_registration_t gate_reg = {
        .name = "AcceldTestGate",
        .op = RT_OP_CUSTOM,
        .prepare = gate_prepare,
        .invoke = gate_invoke,
};

static void add_test_ops(rt_interp_options_t *o) {
        (void) rt_interp_options_add_custom_op(o, "AcceldTestGate", &gate_reg, 1, 1);
}

__attribute__((constructor)) static void test_ops_init(void) {
        daemon_models_options_hook = add_test_ops;
}
