/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference kernels as the built-in `reference` driver. It supports
 * every node the resolver gave a kernel. The executor runs reference nodes
 * directly (they are the plan's own nodes), so the partitioner never
 * delegates to this driver: prepare/execute exist for the interface and
 * refuse with -ENOTSUP.
 */
#include <errno.h>
#include <stdio.h>

#include "config.h"
#include "driver.h"

static int ref_supported(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                         bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]) {
        for (int32_t i = 0; i < g->n_nodes; i++) {
                ret_supported[i] = g->nodes[i].reg != NULL && g->nodes[i].op != RT_BUILTIN_DELEGATE;
                if (ret_supported[i])
                        reasons[i][0] = 0;
                else
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "reference: no kernel for this node");
        }
        return 0;
}

static int ref_calibrate(const rt_driver_t *d, rt_driver_caps_t *ret) {
        rt_driver_caps_t caps = { 0 };
        for (int t = 0; t < _RT_TYPE_MAX; t++)
                caps.operand[t] = (rt_driver_perf_t) { 1.0f, 1.0f };
        caps.relaxed_fp32_as_fp16 = caps.operand[RT_TYPE_FLOAT32];
        caps.if_perf = caps.while_perf = caps.operand[RT_TYPE_FLOAT32];
        *ret = caps;
        return 0;
}

static int ref_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                       const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, rt_driver_error_t *e) {
        snprintf(e->message, sizeof(e->message), "the reference driver runs nodes in the executor, not as a group");
        return -ENOTSUP;
}

static int ref_execute(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size) {
        return -ENOTSUP;
}

static void ref_release(void *prepared) {
}

static const rt_driver_t reference_driver = {
        .abi_version = RT_DRIVER_ABI_VERSION,
        .name = "reference",
        .version = ACCELD_VERSION,
        .type = RT_DRIVER_TYPE_CPU,
        .calibrate = ref_calibrate,
        .supported_ops = ref_supported,
        .prepare = ref_prepare,
        .execute = ref_execute,
        .release = ref_release,
};

const rt_driver_t *rt_driver_reference(void) {
        return &reference_driver;
}

#if !HAVE_XNNPACK
const rt_driver_t *rt_driver_xnnpack(void) {
        return NULL;
}
#endif
