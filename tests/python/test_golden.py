# SPDX-License-Identifier: Apache-2.0
"""Every runnable shared model gives its golden outputs through
accel.Interpreter, served by acceld with the daemon's own settings choice,
and with its reported details matching the manifest."""

import os

import numpy as np
import pytest

import accel
from acceld_fixture import manifest
from golden import compare, read_tensor

_MANIFEST = manifest()
RUNNABLE = [m for m in (_MANIFEST or {}).get("models", []) if m["runnable"]]
# Run in-process (local=True) too: small models of each kind, stateful included.
LOCAL = {"hello_world_float", "hello_world_int8", "micro_speech_lstm", "simple_add_model", "permute_uint8",
         "tf_testdata_string", "mobilenet_v1_0.25_128_quant", "keyword_scrambled"}


def _params(models):
    if not models:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/models is missing (ACCELD_SHARED_DIR)"))]
    return [pytest.param(m, id=m["name"]) for m in models]


def _run(it, models_dir, m):
    ins = it.get_input_details()
    assert len(ins) == len(m["inputs"])
    for d, t in zip(ins, m["inputs"]):
        assert d["name"] == t["name"]
        if t["type"] == "string":
            continue
        assert list(d["shape"]) == t["shape"]
        assert np.dtype(d["dtype"]).name == t["type"]
    for d, t in zip(ins, m["inputs"]):
        if t["type"] == "string":
            raw = read_tensor(models_dir, t)
            n = int.from_bytes(raw[:4], "little")
            offs = np.frombuffer(raw, "<i4", count=n + 1, offset=4)
            it.set_tensor(d["index"], np.array([raw[offs[k]:offs[k + 1]] for k in range(n)], dtype=object).reshape(d["shape"]))
        else:
            it.set_tensor(d["index"], read_tensor(models_dir, t))
    it.invoke()
    outs = it.get_output_details()
    assert len(outs) == len(m["outputs"])
    got = []
    for d, t in zip(outs, m["outputs"]):
        assert d["name"] == t["name"]
        q = t.get("quantization")
        if q:
            assert d["quantization"][1] == q["zero_point"]
            assert d["quantization"][0] == pytest.approx(q["scale"], rel=1e-6)
        v = it.get_tensor(d["index"])
        if t["type"] == "string":
            from accel._details import encode_strings
            v = encode_strings(v)
        got.append(v)
    return got


def _check(got, models_dir, m, kind):
    failures = []
    for v, t in zip(got, m["outputs"]):
        why = compare(v, t, read_tensor(models_dir, t), kind)
        if why:
            failures.append(f"output {t['name']}: {why}")
    assert not failures, f"{m['name']} ({kind} tolerance): " + "; ".join(failures)


@pytest.mark.parametrize("m", _params(RUNNABLE))
def test_golden_served(daemon, models, m):
    path = os.path.join(models, m["file"])
    if not os.path.isfile(path):
        pytest.skip(f"{m['file']} is not stored in ../shared (see its README)")
    it = accel.Interpreter(model_path=path, socket=daemon.socket)
    it.allocate_tensors()
    got = _run(it, models, m)
    info = it.execution_info()
    assert not info["local"]
    accelerated = any(p["driver"] != "reference" for p in info["partitions"])
    _check(got, models, m, "accelerated" if accelerated else "reference")


@pytest.mark.parametrize("m", _params([m for m in RUNNABLE if m["name"] in LOCAL]))
def test_golden_local_reference(models, m):
    path = os.path.join(models, m["file"])
    with open(path, "rb") as f:
        it = accel.Interpreter(model_content=f.read(), settings={"delegate": "NONE"}, local=True)
    it.allocate_tensors()
    got = _run(it, models, m)
    assert it.execution_info()["local"]
    _check(got, models, m, "reference")


@pytest.mark.parametrize("m", _params(RUNNABLE))
def test_golden_local_xnnpack(models, m):
    path = os.path.join(models, m["file"])
    if not os.path.isfile(path):
        pytest.skip(f"{m['file']} is not stored in ../shared (see its README)")
    it = accel.Interpreter(model_path=path, settings={"delegate": "XNNPACK"}, num_threads=1, local=True)
    it.allocate_tensors()
    got = _run(it, models, m)
    accelerated = any(p["driver"] != "reference" for p in it.execution_info()["partitions"])
    _check(got, models, m, "accelerated" if accelerated else "reference")
