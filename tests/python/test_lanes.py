# SPDX-License-Identifier: Apache-2.0
"""Lanes from Python (docs/python.md, "Lanes"): invoke() goes over a lane
when libaccel does, counted by acceld in status()['lanes'], with the
socket's bytes; lane=False and ACCEL_LANE=0 keep it on the socket."""

import numpy as np
import pytest

import accel

MODEL = "mobilenet_v1_0.25_128_quant.tflite"
SETTINGS = {"delegate": "XNNPACK", "xnnpack_settings": {"num_threads": 1}}


def _lane_executions(daemon):
    with accel.Client(daemon.socket) as c:
        return c.status()["lanes"]["executions"]


def _interpreter(daemon, path, **kw):
    it = accel.Interpreter(model_path=path, socket=daemon.socket, settings=SETTINGS, **kw)
    it.allocate_tensors()
    return it


def _run(it, x):
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).copy()


def _inputs(it, n):
    d = it.get_input_details()[0]
    rng = np.random.default_rng(27)
    return [rng.integers(0, 256, size=d["shape"], dtype=np.uint8).astype(d["dtype"]) for _ in range(n)]


def test_lane_counted_and_same_bytes_as_socket(daemon, model):
    path = model(MODEL)
    ln = _interpreter(daemon, path)
    so = _interpreter(daemon, path, lane=False)
    assert ln.execution_info()["lane"] is True
    assert so.execution_info()["lane"] is False
    xs = _inputs(ln, 4)
    before = _lane_executions(daemon)
    want = [_run(so, x) for x in xs]
    assert _lane_executions(daemon) == before, "socket invokes were counted as lane executions"
    for k in range(3):
        for x, w in zip(xs, want):
            got = _run(ln, x)
            assert got.dtype == w.dtype and got.shape == w.shape
            assert got.tobytes() == w.tobytes(), f"round {k}: the lane's output differs from the socket's"
    assert _lane_executions(daemon) == before + 3 * len(xs)
    # Different inputs give different outputs: the comparison above means something.
    assert want[0].tobytes() != want[1].tobytes()


def test_accel_lane_0_keeps_the_socket(daemon, model, monkeypatch):
    path = model(MODEL)
    monkeypatch.setenv("ACCEL_LANE", "0")
    it = _interpreter(daemon, path)
    assert it.execution_info()["lane"] is False
    x = _inputs(it, 1)[0]
    before = _lane_executions(daemon)
    out = _run(it, x)
    assert _lane_executions(daemon) == before
    monkeypatch.delenv("ACCEL_LANE")
    ln = _interpreter(daemon, path)
    assert ln.execution_info()["lane"] is True
    assert _run(ln, x).tobytes() == out.tobytes()
    assert _lane_executions(daemon) == before + 1


def test_lane_argument_checked(daemon, model):
    with pytest.raises(ValueError, match="lane"):
        accel.Interpreter(model_path=model(MODEL), socket=daemon.socket, lane=1)
    # local=True runs in this process: no lane to take.
    it = accel.Interpreter(model_path=model(MODEL), local=True)
    it.allocate_tensors()
    assert it.execution_info()["lane"] is False
