# SPDX-License-Identifier: Apache-2.0
"""Every tensor by index, as tflite_runtime allows (issue 24): intermediate
tensors with experimental_preserve_all_tensors=True, constants, set_tensor
on any tensor TFLite lets be set with its checks and texts. Each behaviour
runs served (a real acceld) and in-process (local=True)."""

import numpy as np
import pytest

import accel

# hello_world_float.tflite: x[1,1] -> FC(W4, b3) + relu -> t7[1,16]
# -> FC(W5, b1) + relu -> t8[1,16] -> FC(W6, b2) -> t9[1,1].
MODEL = "hello_world_float.tflite"
INPUT, T7, T8, OUTPUT = 0, 7, 8, 9
W4, B3, W5, B1, W6, B2 = 4, 3, 5, 1, 6, 2


@pytest.fixture(params=["served", "local"])
def make(request, daemon, model):
    """make(**kw): an Interpreter of MODEL, served by the test daemon or in-process."""
    def build(**kw):
        if request.param == "local":
            kw["local"] = True
        else:
            kw["socket"] = daemon.socket
        return accel.Interpreter(model_path=model(MODEL), **kw)
    build.kind = request.param
    build.socket = daemon.socket
    return build


def reference(it, x):
    """The activations of hello_world computed in numpy from the model's
    constants as the interpreter reports them."""
    w4, b3, w5, b1, w6, b2 = (it.get_tensor(i) for i in (W4, B3, W5, B1, W6, B2))
    t7 = np.maximum(x @ w4.T + b3, 0)
    t8 = np.maximum(t7 @ w5.T + b1, 0)
    return t7, t8, t8 @ w6.T + b2


def test_preserve_all_tensors_reads_every_intermediate(make):
    it = make(experimental_preserve_all_tensors=True)
    # Served, acceld's instance holds only the I/O in shared memory: an
    # interpreter that preserves every tensor runs in this process.
    assert it.execution_info()["local"] is True
    it.allocate_tensors()
    for x in (0.5, 2.0, -1.25):
        it.set_tensor(INPUT, np.array([[x]], np.float32))
        it.invoke()
        t7, t8, out = reference(it, np.array([[x]], np.float32))
        # Both are live only in their own node's neighbourhood: without
        # preserving, the arena gives their bytes to later tensors.
        np.testing.assert_allclose(it.get_tensor(T7), t7, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(it.get_tensor(T8), t8, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(it.get_tensor(OUTPUT), out, rtol=1e-5, atol=1e-5)
        assert it.get_tensor(T7).shape == (1, 16) and it.get_tensor(T7).dtype == np.float32
    # tensor() views any tensor, zero-copy, and protects it like an input's.
    view = it.tensor(T8)
    np.testing.assert_array_equal(view(), it.get_tensor(T8))
    held = view()
    with pytest.raises(RuntimeError, match="There is at least 1 reference"):
        it.invoke()
    del held
    it.invoke()
    details = {d["index"]: d for d in it.get_tensor_details()}
    assert details[T7]["name"] == "sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd"
    assert list(details[T7]["shape"]) == [1, 16]


def test_preserve_all_tensors_keeps_batch_resizes(make):
    it = make(experimental_preserve_all_tensors=True)
    it.resize_tensor_input(INPUT, [3, 1])
    it.allocate_tensors()
    x = np.array([[0.1], [1.0], [3.0]], np.float32)
    it.set_tensor(INPUT, x)
    it.invoke()
    t7, t8, _ = reference(it, x)
    assert it.get_tensor(T8).shape == (3, 16)
    assert {d["index"]: list(d["shape"]) for d in it.get_tensor_details()}[T8] == [3, 16]
    np.testing.assert_allclose(it.get_tensor(T8), t8, rtol=1e-5, atol=1e-6)


def test_constants_are_readable_and_read_only(make, model):
    it = make()
    it.allocate_tensors()
    w4 = it.get_tensor(W4)
    assert w4.shape == (16, 1) and w4.dtype == np.float32 and np.abs(w4).sum() > 0
    # Served they come from the model itself; in-process from its mapping.
    local = accel.Interpreter(model_path=model(MODEL), local=True)
    np.testing.assert_array_equal(w4, local.get_tensor(W4))
    view = it.tensor(W4)()
    assert not view.flags.writeable
    np.testing.assert_array_equal(view, w4)
    del view
    with pytest.raises(ValueError, match="constant of the model"):
        it.set_tensor(W4, np.zeros((16, 1), np.float32))
    np.testing.assert_array_equal(it.get_tensor(W4), w4)


def test_intermediates_without_preserving(make):
    it = make()
    it.allocate_tensors()
    v = np.arange(16, dtype=np.float32).reshape(1, 16)
    if make.kind == "served":
        # They live in acceld's instance, shared with other interpreters.
        for call in (lambda: it.get_tensor(T7), lambda: it.tensor(T7)(), lambda: it.set_tensor(T7, v)):
            with pytest.raises(ValueError, match="intermediate tensor.*experimental_preserve_all_tensors"):
                call()
        return
    # In-process, as in tflite_runtime: readable and settable; the arena
    # may give their bytes to later tensors during an invoke.
    it = make(settings={"delegate": "NONE"})
    it.allocate_tensors()
    it.set_tensor(T7, v)
    np.testing.assert_array_equal(it.get_tensor(T7), v)
    it.set_tensor(INPUT, np.array([[1.0]], np.float32))
    it.invoke()
    assert it.get_tensor(T7).shape == (1, 16)


def test_set_tensor_any_settable_tensor(make):
    it = make()
    it.allocate_tensors()
    # The output can be set, as in TFLite; the next invoke overwrites it.
    it.set_tensor(OUTPUT, np.array([[42.0]], np.float32))
    assert it.get_tensor(OUTPUT)[0, 0] == 42.0
    it.set_tensor(INPUT, np.array([[1.0]], np.float32))
    it.invoke()
    assert it.get_tensor(OUTPUT)[0, 0] != 42.0
    # tflite_runtime's checks, in its order, naming the tensor index.
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Got value of type FLOAT64 but expected type "
                                         r"FLOAT32 for input 9, name: StatefulPartitionedCall:0 $"):
        it.set_tensor(OUTPUT, np.array([[1.0]]))
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Dimension mismatch. Got 1 but expected 2 for "
                                         r"input 9\.$"):
        it.set_tensor(OUTPUT, np.zeros(1, np.float32))
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Dimension mismatch. Got 2 but expected 1 for "
                                         r"dimension 1 of input 9\.$"):
        it.set_tensor(OUTPUT, np.zeros((1, 2), np.float32))
    # TFLite numbers the three FULLY_CONNECTED nodes' 18 temporaries after
    # the model's 10 tensors: 10 is one of them, 28 is out of bounds.
    with pytest.raises(ValueError, match="Tensor 10 is a temporary tensor of a TFLite kernel"):
        it.set_tensor(10, np.zeros((1, 1), np.float32))
    with pytest.raises(ValueError, match="Invalid tensor index 28 exceeds max tensor index 28"):
        it.set_tensor(28, np.zeros((1, 1), np.float32))
    with pytest.raises(ValueError, match="Invalid tensor index -1"):
        it.get_tensor(-1)
    # A preserving interpreter sets intermediates; invoke recomputes them.
    keep = make(experimental_preserve_all_tensors=True)
    keep.allocate_tensors()
    keep.set_tensor(T8, np.full((1, 16), 3.0, np.float32))
    np.testing.assert_array_equal(keep.get_tensor(T8), np.full((1, 16), 3.0, np.float32))
    keep.set_tensor(INPUT, np.array([[1.0]], np.float32))
    keep.invoke()
    np.testing.assert_allclose(keep.get_tensor(T8), reference(keep, np.array([[1.0]], np.float32))[1],
                               rtol=1e-5, atol=1e-6)


def test_set_tensor_before_allocate(make):
    it = make(experimental_preserve_all_tensors=True)
    for t in (INPUT, T7):
        with pytest.raises(ValueError, match=r"^Cannot set tensor: Tensor is unallocated. Try calling "
                                             r"allocate_tensors\(\) first$"):
            it.set_tensor(t, np.zeros(it._get_tensor_details(t, 0)["shape"], np.float32))
    with pytest.raises(ValueError, match=r"Tensor data is null. Run allocate_tensors\(\) first"):
        it.get_tensor(T7)


def test_set_string_output_in_process(model):
    it = accel.Interpreter(model_path=model("ops/tf_testdata_string.bin"), local=True)
    it.allocate_tensors()
    o = it.get_output_details()[0]
    items = np.array([b"x\0" * (k % 3) for k in range(int(np.prod(o["shape"])))], dtype=object)
    it.set_tensor(o["index"], items.reshape(o["shape"]))
    assert list(it.get_tensor(o["index"]).ravel()) == list(items)


def test_variable_tensors_in_process(make, model):
    """An LSTM's state (variable tensors 16, 17) can be read and set
    in-process: a fresh interpreter given another's state continues as it."""
    path = model("mnist_lstm_int8.tflite")
    if make.kind == "served":
        it = accel.Interpreter(model_path=path, socket=make.socket)
        it.allocate_tensors()
        with pytest.raises(ValueError, match="is a variable tensor.*experimental_preserve_all_tensors"):
            it.get_tensor(16)
        return
    a = accel.Interpreter(model_path=path, local=True)
    b = accel.Interpreter(model_path=path, local=True)
    for it in (a, b):
        it.allocate_tensors()
    d = a.get_input_details()[0]
    rng = np.random.default_rng(7)
    x1, x2 = (rng.integers(-128, 128, d["shape"], dtype=np.int8) for _ in range(2))
    a.set_tensor(d["index"], x1)
    a.invoke()
    state = [a.get_tensor(t) for t in (16, 17)]
    assert state[0].dtype == np.int8 and state[1].dtype == np.int16 and state[1].any()
    for t, v in zip((16, 17), state):
        b.set_tensor(t, v)
        np.testing.assert_array_equal(b.get_tensor(t), v)
    out = a.get_output_details()[0]["index"]
    for it in (a, b):
        it.set_tensor(d["index"], x2)
        it.invoke()
    np.testing.assert_array_equal(a.get_tensor(out), b.get_tensor(out))
    # Without the state, the same input gives another output.
    c = accel.Interpreter(model_path=path, local=True)
    c.allocate_tensors()
    c.set_tensor(d["index"], x2)
    c.invoke()
    assert not np.array_equal(c.get_tensor(out), a.get_tensor(out))
