/* SPDX-License-Identifier: Apache-2.0 */
/* GetCapabilities: what this machine and this build can run. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <cpuinfo.h>

#include "config.h"
#if HAVE_XNNPACK
#include <xnnpack.h>
#endif

#include "acceleration.pb-c.h"
#include "cache.h"
#include "cleanup.h"
#include "driver.h"
#include "handlers.h"
#include "log.h"

#ifndef ACCELD_XNNPACK_VERSION
#define ACCELD_XNNPACK_VERSION "XNNPACK (Debian libxnnpack-dev)"
#endif

#define CAPS_MAX_FEATURES 64

/* Probed once by daemon_caps_init(); the CPU does not change under us. */
static struct {
        bool probed;
        bool cpuinfo_ok;
        char vendor[64];
        char model[128];
        char arch[80];
        uint32_t cores, logical;
        uint32_t l1d_kb, l2_kb, l3_kb;
        char *features[CAPS_MAX_FEATURES];      /* static strings */
        size_t n_features;
        bool xnnpack_ok;
        const char *xnnpack_reason;
        /* Per-operand-type performance relative to the reference driver,
         * from the drivers' one-time calibration (done here, at start-up,
         * never on the loop while serving). */
        rt_driver_caps_t perf_reference, perf_xnnpack;
        bool perf_reference_ok, perf_xnnpack_ok;
} caps;

static const char *vendor_name(enum cpuinfo_vendor v) {
        switch (v) {
        case cpuinfo_vendor_intel: return "Intel";
        case cpuinfo_vendor_amd: return "AMD";
        case cpuinfo_vendor_arm: return "ARM";
        case cpuinfo_vendor_qualcomm: return "Qualcomm";
        case cpuinfo_vendor_apple: return "Apple";
        case cpuinfo_vendor_samsung: return "Samsung";
        case cpuinfo_vendor_nvidia: return "NVIDIA";
        case cpuinfo_vendor_mips: return "MIPS";
        case cpuinfo_vendor_ibm: return "IBM";
        case cpuinfo_vendor_ingenic: return "Ingenic";
        case cpuinfo_vendor_via: return "VIA";
        case cpuinfo_vendor_cavium: return "Cavium";
        case cpuinfo_vendor_broadcom: return "Broadcom";
        case cpuinfo_vendor_apm: return "APM";
        case cpuinfo_vendor_huawei: return "Huawei";
        case cpuinfo_vendor_hygon: return "Hygon";
        default: return NULL;
        }
}

static void add_feature(bool present, const char *name) {
        if (present && caps.n_features < CAPS_MAX_FEATURES)
                caps.features[caps.n_features++] = (char *) name;
}

static void probe_features(void) {
#if CPUINFO_ARCH_X86 || CPUINFO_ARCH_X86_64
        add_feature(cpuinfo_has_x86_sse2(), "sse2");
        add_feature(cpuinfo_has_x86_sse3(), "sse3");
        add_feature(cpuinfo_has_x86_ssse3(), "ssse3");
        add_feature(cpuinfo_has_x86_sse4_1(), "sse4.1");
        add_feature(cpuinfo_has_x86_sse4_2(), "sse4.2");
        add_feature(cpuinfo_has_x86_popcnt(), "popcnt");
        add_feature(cpuinfo_has_x86_avx(), "avx");
        add_feature(cpuinfo_has_x86_f16c(), "f16c");
        add_feature(cpuinfo_has_x86_fma3(), "fma");
        add_feature(cpuinfo_has_x86_avx2(), "avx2");
        add_feature(cpuinfo_has_x86_bmi2(), "bmi2");
        add_feature(cpuinfo_has_x86_avx512f(), "avx512f");
        add_feature(cpuinfo_has_x86_avx512cd(), "avx512cd");
        add_feature(cpuinfo_has_x86_avx512dq(), "avx512dq");
        add_feature(cpuinfo_has_x86_avx512bw(), "avx512bw");
        add_feature(cpuinfo_has_x86_avx512vl(), "avx512vl");
        add_feature(cpuinfo_has_x86_avx512ifma(), "avx512ifma");
        add_feature(cpuinfo_has_x86_avx512vbmi(), "avx512vbmi");
        add_feature(cpuinfo_has_x86_avx512vbmi2(), "avx512vbmi2");
        add_feature(cpuinfo_has_x86_avx512vnni(), "avx512vnni");
        add_feature(cpuinfo_has_x86_avx512bf16(), "avx512bf16");
        add_feature(cpuinfo_has_x86_avx512bitalg(), "avx512bitalg");
        add_feature(cpuinfo_has_x86_avx512vpopcntdq(), "avx512vpopcntdq");
        add_feature(cpuinfo_has_x86_gfni(), "gfni");
        add_feature(cpuinfo_has_x86_vaes(), "vaes");
        add_feature(cpuinfo_has_x86_vpclmulqdq(), "vpclmulqdq");
        add_feature(cpuinfo_has_x86_sha(), "sha");
        add_feature(cpuinfo_has_x86_aes(), "aes");
#elif CPUINFO_ARCH_ARM || CPUINFO_ARCH_ARM64
        add_feature(cpuinfo_has_arm_neon(), "neon");
        add_feature(cpuinfo_has_arm_neon_fma(), "neon-fma");
        add_feature(cpuinfo_has_arm_neon_fp16(), "neon-fp16");
        add_feature(cpuinfo_has_arm_fp16_arith(), "fp16-arith");
        add_feature(cpuinfo_has_arm_neon_fp16_arith(), "neon-fp16-arith");
        add_feature(cpuinfo_has_arm_neon_dot(), "dotprod");
        add_feature(cpuinfo_has_arm_neon_rdm(), "rdm");
        add_feature(cpuinfo_has_arm_bf16(), "bf16");
        add_feature(cpuinfo_has_arm_sve(), "sve");
        add_feature(cpuinfo_has_arm_sve2(), "sve2");
        add_feature(cpuinfo_has_arm_aes(), "aes");
        add_feature(cpuinfo_has_arm_sha2(), "sha2");
        add_feature(cpuinfo_has_arm_crc32(), "crc32");
        add_feature(cpuinfo_has_arm_atomics(), "atomics");
#endif
}

/* "key : value" from /proc/cpuinfo, for what cpuinfo leaves blank. */
static void proc_cpuinfo_value(const char *key, char *buf, size_t len) {
        _cleanup_fclose_ FILE *f = fopen("/proc/cpuinfo", "re");
        char line[512];
        size_t klen = strlen(key);

        if (!f)
                return;
        while (fgets(line, sizeof(line), f)) {
                char *colon, *v, *end;

                if (strncmp(line, key, klen) != 0)
                        continue;
                colon = strchr(line + klen, ':');
                if (!colon)
                        continue;
                for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
                        ;
                end = v + strlen(v);
                while (end > v && (end[-1] == '\n' || end[-1] == ' '))
                        *--end = '\0';
                (void) snprintf(buf, len, "%s", v);
                return;
        }
}

int daemon_caps_init(void) {
        struct utsname u;
        int r = 0;

        if (caps.probed)
                return 0;
        caps.probed = true;
        if (uname(&u) == 0)
                (void) snprintf(caps.arch, sizeof(caps.arch), "%s", u.machine);

        caps.cpuinfo_ok = cpuinfo_initialize();
        if (caps.cpuinfo_ok) {
                const struct cpuinfo_package *pkg = cpuinfo_get_package(0);
                const struct cpuinfo_core *core = cpuinfo_get_core(0);
                const struct cpuinfo_cache *c;
                const char *v = core ? vendor_name(core->vendor) : NULL;

                if (v)
                        (void) snprintf(caps.vendor, sizeof(caps.vendor), "%s", v);
                if (pkg && pkg->name[0])
                        (void) snprintf(caps.model, sizeof(caps.model), "%s", pkg->name);
                caps.cores = cpuinfo_get_cores_count();
                caps.logical = cpuinfo_get_processors_count();
                if ((c = cpuinfo_get_l1d_cache(0)))
                        caps.l1d_kb = c->size / 1024;
                if ((c = cpuinfo_get_l2_cache(0)))
                        caps.l2_kb = c->size / 1024;
                if ((c = cpuinfo_get_l3_cache(0)))
                        caps.l3_kb = c->size / 1024;
                probe_features();
        } else
                r = log_warning_errno(-ENODEV, "cpuinfo_initialize() failed; CPU details limited");

        if (!caps.vendor[0])
                proc_cpuinfo_value("vendor_id", caps.vendor, sizeof(caps.vendor));
        if (!caps.model[0])
                proc_cpuinfo_value("model name", caps.model, sizeof(caps.model));

#if HAVE_XNNPACK
        if (xnn_initialize(NULL) == xnn_status_success)
                caps.xnnpack_ok = true;
        else
                caps.xnnpack_reason = "xnn_initialize() failed: this CPU lacks the instructions XNNPACK needs";
#else
        caps.xnnpack_reason = "acceld was built without XNNPACK";
#endif
        caps.perf_reference_ok = rt_driver_capabilities(rt_driver_reference(), &caps.perf_reference) == 0;
        if (caps.xnnpack_ok && rt_driver_xnnpack())
                caps.perf_xnnpack_ok = rt_driver_capabilities(rt_driver_xnnpack(), &caps.perf_xnnpack) == 0;
        return r;
}

static int read_meminfo(uint64_t *ret_total, uint64_t *ret_avail) {
        _cleanup_fclose_ FILE *f = fopen("/proc/meminfo", "re");
        unsigned long long total = 0, avail = 0, v;
        char line[256];

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                if (sscanf(line, "MemTotal: %llu kB", &v) == 1)
                        total = v;
                else if (sscanf(line, "MemAvailable: %llu kB", &v) == 1)
                        avail = v;
        }
        if (total == 0)
                return -ENODATA;
        *ret_total = total * 1024;
        *ret_avail = avail * 1024;
        return 0;
}

/* Why a seed Delegate other than XNNPACK cannot run here. */
static const char *delegate_reason(int value) {
        switch (value) {
        case TFLITE__PROTO__DELEGATE__NNAPI:
                return "NNAPI is an Android API; not present on Linux";
        case TFLITE__PROTO__DELEGATE__GPU:
                return "no GPU delegate is built into acceld";
        case TFLITE__PROTO__DELEGATE__HEXAGON:
                return "the Hexagon delegate needs a Qualcomm Hexagon DSP and its Android libraries; not built";
        case TFLITE__PROTO__DELEGATE__EDGETPU:
                return "the Edge TPU delegate is for Pixel devices; not built";
        case TFLITE__PROTO__DELEGATE__EDGETPU_CORAL:
                return "no Coral Edge TPU delegate is built (libedgetpu is not linked)";
        default:
                return "no delegate for this value is built into acceld";
        }
}

static Acceld__Backend *backend_new(daemon_request_t *rq, const char *name, int delegate,
                                    bool available, const char *version, const char *reason,
                                    const char *type) {
        Acceld__Backend *b = daemon_request_alloc(rq, sizeof(*b));

        if (!b)
                return NULL;
        acceld__backend__init(b);
        b->name = daemon_request_strdup(rq, name);
        if (!b->name)
                return NULL;
        b->has_delegate = 1;
        b->delegate = delegate;
        b->has_available = 1;
        b->available = available;
        b->version = (char *) version;
        b->unavailable_reason = (char *) reason;
        b->type = (char *) type;
        return b;
}

/* NNAPI-style PerformanceInfo per operand type (types the driver computes
 * in; exec_time 0 means "not supported" and is left out). */
static int fill_performance(daemon_request_t *rq, Acceld__Backend *b, const rt_driver_caps_t *perf) {
        size_t n = 0;
        for (int t = 0; t < _RT_TYPE_MAX; t++)
                n += perf->operand[t].exec_time > 0.0f;
        if (!n)
                return 0;
        Acceld__OperandPerformance **list = daemon_request_alloc(rq, n * sizeof(*list));
        if (!list)
                return -ENOMEM;
        size_t k = 0;
        for (int t = 0; t < _RT_TYPE_MAX; t++) {
                if (!(perf->operand[t].exec_time > 0.0f))
                        continue;
                Acceld__OperandPerformance *p = daemon_request_alloc(rq, sizeof(*p));
                if (!p)
                        return -ENOMEM;
                acceld__operand_performance__init(p);
                p->operand_type = (char *) rt_type_name((rt_type_t) t);
                p->has_exec_time = p->has_power_usage = 1;
                p->exec_time = perf->operand[t].exec_time;
                p->power_usage = perf->operand[t].power_usage;
                list[k++] = p;
        }
        b->performance = list;
        b->n_performance = k;
        return 0;
}

static int fill_backends(daemon_request_t *rq, Acceld__GetCapabilitiesResponse *out) {
        const ProtobufCEnumDescriptor *d = &tflite__proto__delegate__descriptor;
        Acceld__Backend **list;
        size_t n = 0;

        list = daemon_request_alloc(rq, (d->n_values + 2 + rt_driver_count()) * sizeof(*list));
        if (!list)
                return -ENOMEM;
        list[n++] = backend_new(rq, "reference", TFLITE__PROTO__DELEGATE__NONE, true, ACCELD_VERSION,
                                NULL, "cpu");
        list[n++] = backend_new(rq, "xnnpack", TFLITE__PROTO__DELEGATE__XNNPACK, caps.xnnpack_ok,
                                ACCELD_XNNPACK_VERSION, caps.xnnpack_ok ? NULL : caps.xnnpack_reason,
                                "cpu");
        if (list[0] && caps.perf_reference_ok && fill_performance(rq, list[0], &caps.perf_reference) < 0)
                return -ENOMEM;
        if (list[1] && caps.perf_xnnpack_ok && fill_performance(rq, list[1], &caps.perf_xnnpack) < 0)
                return -ENOMEM;
        /* Every other value of the seed enum, so clients see the full list. */
        for (unsigned i = 0; i < d->n_values; i++) {
                int v = d->values[i].value;
                char *name;

                if (v == TFLITE__PROTO__DELEGATE__NONE || v == TFLITE__PROTO__DELEGATE__XNNPACK)
                        continue;
                name = daemon_request_strdup(rq, d->values[i].name);
                if (!name)
                        return -ENOMEM;
                for (char *p = name; *p; p++)
                        if (*p >= 'A' && *p <= 'Z')
                                *p = (char) (*p - 'A' + 'a');
                list[n] = backend_new(rq, name, v, false, NULL, delegate_reason(v),
                                      v == TFLITE__PROTO__DELEGATE__GPU ? "gpu" : "accelerator");
                n++;
        }
        /* Every other registered driver: the plugins (run in driver hosts
         * unless isolate_drivers = none). A plugin is asked for by name. */
        for (size_t i = 0; i < rt_driver_count(); i++) {
                const rt_driver_t *drv = rt_driver_get(i);
                static const char *const types[] = { [RT_DRIVER_TYPE_OTHER] = "other", [RT_DRIVER_TYPE_CPU] = "cpu",
                                                     [RT_DRIVER_TYPE_GPU] = "gpu",
                                                     [RT_DRIVER_TYPE_ACCELERATOR] = "accelerator" };
                if (!drv || strcmp(drv->name, "reference") == 0 || strcmp(drv->name, "xnnpack") == 0)
                        continue;
                list[n++] = backend_new(rq, drv->name, TFLITE__PROTO__DELEGATE__NONE, true, drv->version, NULL,
                                        drv->type >= RT_DRIVER_TYPE_OTHER && drv->type <= RT_DRIVER_TYPE_ACCELERATOR
                                                ? types[drv->type]
                                                : "other");
        }
        for (size_t i = 0; i < n; i++)
                if (!list[i])
                        return -ENOMEM;
        out->backends = list;
        out->n_backends = n;
        return 0;
}

int daemon_caps_handle(daemon_request_t *rq) {
        Acceld__GetCapabilitiesResponse *out;
        Acceld__CpuInfo *cpu;
        Acceld__MemoryInfo *mem;
        uint64_t total, avail;
        int r;

        (void) daemon_caps_init();
        out = daemon_request_alloc(rq, sizeof(*out));
        cpu = daemon_request_alloc(rq, sizeof(*cpu));
        mem = daemon_request_alloc(rq, sizeof(*mem));
        if (!out || !cpu || !mem)
                return -ENOMEM;
        acceld__get_capabilities_response__init(out);
        acceld__cpu_info__init(cpu);
        acceld__memory_info__init(mem);

        cpu->vendor = caps.vendor[0] ? caps.vendor : (char *) "unknown";
        cpu->model = caps.model[0] ? caps.model : (char *) "unknown";
        cpu->architecture = caps.arch;
        if (caps.cores) {
                cpu->has_cores = 1;
                cpu->cores = caps.cores;
        }
        if (caps.logical) {
                cpu->has_logical_processors = 1;
                cpu->logical_processors = caps.logical;
        }
        cpu->features = caps.features;
        cpu->n_features = caps.n_features;
        cpu->has_l1d_cache_kb = caps.l1d_kb != 0;
        cpu->l1d_cache_kb = caps.l1d_kb;
        cpu->has_l2_cache_kb = caps.l2_kb != 0;
        cpu->l2_cache_kb = caps.l2_kb;
        cpu->has_l3_cache_kb = caps.l3_kb != 0;
        cpu->l3_cache_kb = caps.l3_kb;
        out->cpu = cpu;

        if (read_meminfo(&total, &avail) == 0) {
                mem->has_total_bytes = 1;
                mem->total_bytes = total;
                mem->has_available_bytes = 1;
                mem->available_bytes = avail;
        }
        out->memory = mem;

        r = fill_backends(rq, out);
        if (r < 0)
                return r;
        /* NNAPI isCachingSupported: cache tokens need the state directory. */
        out->has_compilation_cache = 1;
        out->compilation_cache = daemon_cache_available();
        rq->resp.body_case = ACCELD__RESPONSE__BODY_GET_CAPABILITIES;
        rq->resp.get_capabilities = out;
        return 0;
}
