#!/bin/sh
# The driver ABI is self-contained: the files install_headers() installs
# (<accel/driver.h>, <accel/ops.inc>, <accel/options.inc>) are copied alone
# into an empty directory, as an install would leave them, and
#   1. the header compiles on its own with only libc's headers
#      (cc -fsyntax-only, -std=c11 -Wall -Wextra -Wpedantic -Werror);
#   2. plugins/faulty/faulty.c builds into a plugin with -I of that
#      directory alone and links nothing of acceld's (its undefined symbols
#      are libc's; it exports the entry point);
#   3. that plugin loads into the runtime and runs an ADD exactly as the
#      reference kernels do (plugin-smoke).
# Usage: check-abi-header.sh CC FAULTY_C PLUGIN_SMOKE HEADER...
set -eu
cc=$1 faulty=$2 smoke=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/include/accel"
for h in "$@"; do
        cp "$h" "$tmp/include/accel/"
done
flags="-std=c11 -Wall -Wextra -Werror -I$tmp/include"

printf '#include <accel/driver.h>\n' > "$tmp/only.c"
$cc $flags -Wpedantic -fsyntax-only "$tmp/only.c"
# Every type a driver uses, from the header alone.
cat > "$tmp/use.c" <<'C'
#include <accel/driver.h>
static int prep(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                const rt_settings_t *s, uint64_t deadline_ns, void **ret, rt_driver_error_t *e) {
        (void) d; (void) s; (void) deadline_ns; (void) ret;
        const rt_node_t *n = &g->nodes[grp->nodes[0]];
        const rt_tensor_t *t = &g->tensors[n->inputs[0]];
        e->node = n->op == RT_BUILTIN_ADD && t->type == RT_TYPE_FLOAT32 && n->options.pos ? n->index : -1;
        return rt_tensor_count(t) > 0 && RT_OPTIONS_ADD == 11 ? -1 : 0;
}
int check_abi(void);
int check_abi(void) {
        rt_driver_t d = { .abi_version = RT_DRIVER_ABI_VERSION, .name = "x", .prepare = prep };
        rt_driver_caps_t caps = { .operand[RT_TYPE_INT8] = { 1.0f, 1.0f } };
        rt_driver_entry_t entry = 0;
        (void) entry;
        return (int) d.abi_version + (int) caps.operand[RT_TYPE_INT8].exec_time + RT_DRIVER_ERROR_MAX;
}
C
$cc $flags -Wpedantic -fsyntax-only "$tmp/use.c"
echo "ok: <accel/driver.h> compiles alone (ABI $(printf '#include <accel/driver.h>\nRT_DRIVER_ABI_VERSION\n' | $cc -I"$tmp/include" -E -P - | tail -1))"

$cc $flags -fPIC -shared -o "$tmp/faulty.so" "$faulty" -lpthread
undef=$(nm -D --undefined-only "$tmp/faulty.so" | awk '{print $2}' | grep -Ev '@GLIBC|^_' || true)
if [ -n "$undef" ]; then
        echo "faulty.so built against the installed ABI needs symbols outside libc: $undef" >&2
        exit 1
fi
nm -D --defined-only "$tmp/faulty.so" | grep -q ' T acceld_driver_entry_v1$'
echo "ok: plugins/faulty/faulty.c builds with -I<installed headers> alone"

"$smoke" "$tmp/faulty.so"
