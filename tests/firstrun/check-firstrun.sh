#!/bin/sh
# The first run's files (data/firstrun/) through a real acceld: the shipped
# MobileNet must classify the shipped photo of a cat as a cat. The photo is
# preprocessed by accelctl eval topk (the project's image code: libpng,
# centre crop, bilinear resize to 128x128, uint8), served by acceld with
# the reference kernels and with XNNPACK (when built), and the model's
# top-1 must be one of ImageNet's five cat classes (indices 282..286 of the
# 1001 labels: tabby, tiger cat, Persian, Siamese, Egyptian cat).
# Also: every file matches data/firstrun/SHA256SUMS, and the photo is byte
# for byte python3-skimage's chelsea.png when that package is installed.
# Usage: check-firstrun.sh ACCELCTL ACCELD DATA_DIR
set -eu
accelctl=$1
acceld=$2
data=$3
model="$data/mobilenet_v1_0.25_128_quant.tflite"
labels="$data/imagenet_labels.txt"
debian_photo=/usr/lib/python3/dist-packages/skimage/data/chelsea.png

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

(cd "$data" && sha256sum --quiet -c SHA256SUMS) || fail "data/firstrun/ does not match its SHA256SUMS"
if [ -f "$debian_photo" ]; then
        cmp "$data/chelsea.png" "$debian_photo" || fail "data/firstrun/chelsea.png is not $debian_photo"
        echo "chelsea.png is python3-skimage's $debian_photo"
else
        echo "python3-skimage is not installed: the photo is not compared with Debian's"
fi
[ "$(wc -l <"$labels")" -eq 1001 ] || fail "$labels does not have 1001 lines"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-firstrun.XXXXXX")
pid=
cleanup() {
        if [ -n "$pid" ]; then
                kill "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

sock="$tmp/acceld.sock"
"$acceld" --config /dev/null --socket "$sock" --state-dir "$tmp/state" --log-target stderr 2>"$tmp/acceld.log" &
pid=$!
i=0
until "$accelctl" --socket "$sock" status >/dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
                cat "$tmp/acceld.log" >&2
                fail "acceld did not answer on $sock"
        fi
        sleep 0.1
done

# The same photo five times, each with one of the cat classes as its
# ground truth: top-1 accuracy is 1/5 exactly when the model's top-1 is a
# cat (one image's ground truth matches, the others' cannot), top-5
# accuracy counts the cat classes among its top 5.
mkdir "$tmp/images"
for c in 282 283 284 285 286; do
        ln -s "$data/chelsea.png" "$tmp/images/cat-$c.png"
done
sed -n '283,287p' "$labels" >"$tmp/cats.txt"
grep -q '^tabby, tabby cat$' "$tmp/cats.txt" && grep -q '^Egyptian cat$' "$tmp/cats.txt" ||
        fail "lines 283..287 of $labels are not the cat classes: $(cat "$tmp/cats.txt")"

settings_list='{"delegate":"NONE"}'
if "$accelctl" --socket "$sock" --json caps | grep -q '"XNNPACK"'; then
        settings_list="$settings_list {\"delegate\":\"XNNPACK\"}"
else
        echo "acceld has no XNNPACK: the reference kernels only"
fi
for s in $settings_list; do
        echo "== $s"
        "$accelctl" --socket "$sock" eval topk "$model" --images "$data" --ground-truth "$data/ground-truth.txt" \
                --labels "$labels" --settings "$s" | sed -n '1,6p'
        "$accelctl" --socket "$sock" eval topk "$model" --images "$tmp/images" --ground-truth "$tmp/cats.txt" \
                --labels "$labels" --settings "$s" --json >"$tmp/topk.json" || fail "accelctl eval topk failed ($s)"
        python3 - "$tmp/topk.json" "$s" <<'PY' || fail "chelsea.png is not classified as a cat ($s)"
import json, sys
m = json.load(open(sys.argv[1]))["imageClassificationMetrics"]
acc = m["topkAccuracies"] if "topkAccuracies" in m else m["topkAccuracyMetrics"]["topkAccuracies"]
assert m["inferenceMetrics"]["numInferences"] == 5, m
cats_top1, cats_top5 = round(acc[0] * 5), round(acc[4] * 5)
print(f"{sys.argv[2]}: top-1 is a cat: {cats_top1 == 1}; cat classes in the top 5: {cats_top5}")
assert cats_top1 == 1, acc
assert cats_top5 >= 1, acc
PY
done
exit 0
