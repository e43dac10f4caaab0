# SPDX-License-Identifier: Apache-2.0
"""Stateful models acceld placed in the client's process
(client_placement_min_served): reset_all_variables() gives back exactly
what a fresh interpreter computes, served or placed, and two placed
interpreters of one model each keep their own state."""

import numpy as np
import pytest

import accel
from acceld_fixture import Daemon

SETTINGS = {"delegate": "XNNPACK", "xnnpack_settings": {"num_threads": 1}}
STEPS = 3


@pytest.fixture(scope="module")
def placing():
    """acceld placing the client's own settings from the median of 3 served
    executions, however long the model computes."""
    d = Daemon("--client-placement-min-served", str(STEPS), "--client-placement-max-us", "60000000",
               "--client-placement-max-overhead", "0.0001")
    yield d
    d.stop()
    assert d.proc.returncode == 0, f"acceld exited with {d.proc.returncode}:\n{d.log()}"


def _placed(d):
    with accel.Client(d.socket) as c:
        return c.status()["placement"]["placed_in_client"]


def _open(d, path):
    it = accel.Interpreter(model_path=path, socket=d.socket, settings=SETTINGS)
    it.allocate_tensors()
    return it


def _step(it):
    """An invoke on the same small inputs every time, so that outputs
    differ by state alone; the outputs, concatenated as bytes."""
    rng = np.random.default_rng(1000)
    for d in it.get_input_details():
        if np.issubdtype(d["dtype"], np.floating):
            x = rng.uniform(-1, 1, d["shape"]).astype(d["dtype"])
        else:
            x = rng.integers(-8, 8, d["shape"], d["dtype"], endpoint=True)
        it.set_tensor(d["index"], x)
    it.invoke()
    return b"".join(it.get_tensor(o["index"]).tobytes() for o in it.get_output_details())


@pytest.fixture(params=["counter", "micro_speech_lstm"])
def stateful(request, built, model):
    """counter: VAR_HANDLE, READ/ASSIGN_VARIABLE, CALL_ONCE (tests/builder);
    micro_speech_lstm: LSTM variable tensors (../shared)."""
    if request.param == "counter":
        return built("counter")
    return model(f"{request.param}.tflite")


def test_placed_reset_is_fresh(placing, stateful):
    # Served first (no compute yet); its executions give the compute.
    before = _placed(placing)
    served = _open(placing, stateful)
    want = [_step(served) for _ in range(STEPS)]
    assert want[0] != want[1], "the model should carry state from one invoke to the next"
    served.reset_all_variables()
    assert _step(served) == want[0]
    assert _placed(placing) == before
    # Placed: the next two prepares run in this process.
    a, b = _open(placing, stateful), _open(placing, stateful)
    assert _placed(placing) == before + 2
    for s in range(STEPS):
        assert _step(a) == want[s], f"placed step {s}"
    assert _step(b) == want[0], "another placed interpreter of the model starts fresh"
    a.reset_all_variables()
    assert _step(a) == want[0], "after reset"
    assert _step(b) == want[1], "the other interpreter's state is its own"
    assert _step(a) == want[1], "after reset"
    b.reset_all_variables()
    b.reset_all_variables()
    assert _step(b) == want[0], "after two resets"
