# SPDX-License-Identifier: Apache-2.0
"""accel.Client answers with accelctl --json's field names and values."""

import hashlib
import json
import os
import subprocess

import pytest

import accel


def _accelctl(daemon, *args):
    binary = os.environ.get("ACCELCTL_BIN")
    if not binary:
        pytest.skip("ACCELCTL_BIN is not set (meson test sets it)")
    out = subprocess.run([binary, "--socket", daemon.socket, *args, "--json"], check=True, capture_output=True)
    return json.loads(out.stdout)


def test_capabilities(daemon):
    with accel.Client(daemon.socket) as c:
        caps = c.capabilities()
    ref = _accelctl(daemon, "caps")
    assert set(caps) == set(ref)
    assert set(caps["cpu"]) == set(ref["cpu"]) and caps["cpu"]["model"] == ref["cpu"]["model"]
    assert [b["name"] for b in caps["backends"]] == [b["name"] for b in ref["backends"]]
    assert set(caps["backends"][0]) == set(ref["backends"][0])
    assert any(b["name"] == "reference" and b["available"] for b in caps["backends"])


def test_status(daemon):
    with accel.Client(daemon.socket) as c:
        s = c.status()
    ref = _accelctl(daemon, "status")
    assert set(s) == set(ref)
    assert s["pid"] == daemon.proc.pid and s["socket_path"] == daemon.socket
    assert s["connections"] >= 1
    assert set(s["refusals"]) == set(ref["refusals"]) and set(s["cpu"]) == set(ref["cpu"])
    assert s["cpu"]["budget"] == ref["cpu"]["budget"] >= 1
    assert set(s["placement"]) == set(ref["placement"])
    assert s["placement"]["max_compute_us"] == ref["placement"]["max_compute_us"] == 10000


def test_supported_operations_and_models(daemon, model):
    path = model("hello_world_float.tflite")
    with accel.Client(daemon.socket) as c:
        ops = c.supported_operations(path)
        assert ops == c.supported_operations(open(path, "rb").read())
        assert ops == _accelctl(daemon, "ops", path)
        assert [o["op"] for o in ops] == ["FULLY_CONNECTED"] * 3
        it = accel.Interpreter(model_path=path, socket=daemon.socket)
        sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
        entry = [m for m in c.models() if m["sha256"] == sha]
        assert entry and entry[0]["references"] >= 1 and entry[0]["size"] == os.path.getsize(path)
        assert set(entry[0]) == {"sha256", "name", "size", "instances", "references"}
        del it


def test_benchmark_events_best(daemon, model):
    path = model("hello_world_float.tflite")
    states = []
    cands = [{"delegate": "NONE"}, {"delegate": "XNNPACK", "xnnpack_settings": {"num_threads": 1}}]
    with accel.Client(daemon.socket) as c:
        r = c.benchmark(path, candidates=cands, progress=states.append, runs=3)
        assert states and states[-1]["finished"] and states[-1]["done"] == states[-1]["total"] == 2
        assert set(r) == {"model_sha256", "candidates", "best"}
        assert r["model_sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest()
        assert [x["settings"].get("delegate", "NONE") for x in r["candidates"]] == ["NONE", "XNNPACK"]
        assert all(x["ok"] and x["median_us"] is not None and x["error"] is None for x in r["candidates"])
        assert r["best"].get("delegate", "NONE") in ("NONE", "XNNPACK")
        best = c.best(path, "ANY")
        assert best["settings"] == r["best"] and best["reason"]
        assert {"settings", "reason"} <= set(best)
        events = c.events(model=path)
        assert {e["event_type"] for e in events} >= {"START", "END"}
        ends = c.events(model=r["model_sha256"], event_type="END")
        assert len(ends) == 2 and all(e["result"]["ok"] for e in ends)
        assert all(len(e["result"]["inference_time_us"]) >= 1 for e in ends)
    ref = _accelctl(daemon, "events")
    mine = accel.Client(daemon.socket).events()
    assert [e["id"] for e in mine] == [e["id"] for e in ref]
    assert mine[0].keys() == ref[0].keys()
    # With a best setting recorded, an Interpreter without settings uses it.
    it = accel.Interpreter(model_path=path, socket=daemon.socket)
    it.allocate_tensors()
    drivers = {p["driver"] for p in it.execution_info()["partitions"]}
    assert drivers == ({"reference"} if r["best"].get("delegate", "NONE") == "NONE" else {"xnnpack"})
    # An explicit ExecutionPreference picks that decision.
    with accel.Client(daemon.socket) as c:
        for pref in ("LOW_LATENCY", "FORCE_CPU"):
            want = c.best(path, pref)["settings"].get("delegate", "NONE")
            it = accel.Interpreter(model_path=path, socket=daemon.socket, preference=pref)
            it.allocate_tensors()
            got = {p["driver"] for p in it.execution_info()["partitions"]}
            assert got == ({"reference"} if want == "NONE" else {"xnnpack"}), pref


def test_evaluate_diff_and_evaluations(daemon, model):
    path = model("hello_world_float.tflite")
    it = accel.Interpreter(model_path=path, socket=daemon.socket,
                           settings={"delegate": "XNNPACK", "xnnpack_settings": {"num_threads": 1}})
    it.allocate_tensors()
    r = it.evaluate_diff(runs=5, seed=7)
    assert r["stage"] == "inference_diff" and r["source"] == "acceld" and r["samples"] == 5
    assert r["model_sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest()
    assert "XNNPACK" in r["settings_key"] or "xnnpack" in r["settings_key"]
    # XNNPACK against the reference kernels on three FULLY_CONNECTED: close.
    assert 0 <= r["accuracy"] < 1e-3
    assert r["metrics"], "the ProcessMetrics are empty"
    with accel.Client(daemon.socket) as c:
        mine = c.evaluations(model=path)
        assert mine and mine[-1] == r
        assert c.evaluations(model="0" * 64) == []
    ref = _accelctl(daemon, "events", "--evaluations")
    assert [e["id"] for e in accel.Client(daemon.socket).evaluations()] == [e["id"] for e in ref]
    assert ref[-1].keys() == r.keys()
    with pytest.raises(RuntimeError):
        accel.Interpreter(model_path=path, local=True).evaluate_diff()
