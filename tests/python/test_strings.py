# SPDX-License-Identifier: Apache-2.0
"""String tensors, served by acceld and in-process, with tflite_runtime's
results: details' dtype np.bytes_, get_tensor an object array of bytes
exactly as stored (NULs kept), 0-d and N-d, empty strings; a stateful model
with strings per interpreter; lists over acceld's frame limit refused with
the limit named."""

import os
import subprocess

import numpy as np
import pytest

import accel
from acceld_fixture import Daemon


@pytest.fixture(params=["served", "local"])
def make(request, daemon):
    """An Interpreter on a model path, served by acceld or local=True."""
    def mk(path):
        if request.param == "local":
            return accel.Interpreter(model_path=path, local=True)
        return accel.Interpreter(model_path=path, socket=daemon.socket)
    mk.served = request.param == "served"
    return mk


def test_gather_string(make, built):
    # TensorFlow's interpreter_test.py testString, on our rebuilt model.
    it = make(built("gather_string"))
    it.allocate_tensors()
    ins, outs = it.get_input_details(), it.get_output_details()
    assert [d["name"] for d in ins] == ["input", "indices"]
    assert ins[0]["dtype"] == np.bytes_ and outs[0]["dtype"] == np.bytes_
    assert list(ins[0]["shape"]) == [10] and list(outs[0]["shape"]) == [3]
    it.set_tensor(ins[1]["index"], np.array([1, 2, 3], dtype=np.int64))
    it.set_tensor(ins[0]["index"], np.array(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    it.invoke()
    out = it.get_tensor(outs[0]["index"])
    assert out.dtype == object and out.shape == (3,)
    assert all(type(x) is bytes for x in out)
    assert (np.array([b"b", b"c", b"d"]) == out).all()
    assert execution_local(it) != make.served


def execution_local(it):
    return it.execution_info()["local"]


def test_bytes_exact(make, built):
    it = make(built("gather_string"))
    it.allocate_tensors()
    ins, o = it.get_input_details(), it.get_output_details()[0]["index"]
    # NULs inside and at the end, empty strings, non-ASCII bytes.
    items = [b"", b"\0", b"a\0", b"\0b\0\0", bytes(range(256)), b"x" * 1000, b"", b"\xff\xfe", b"tail\0\0\0", b"j"]
    it.set_tensor(ins[0]["index"], np.array(items, dtype=object))
    for start in (0, 3, 7):
        it.set_tensor(ins[1]["index"], np.arange(start, start + 3, dtype=np.int64))
        it.invoke()
        assert list(it.get_tensor(o)) == items[start:start + 3]
    # The input reads back as set.
    assert list(it.get_tensor(ins[0]["index"])) == items
    # An S array's items go in with their full width (NUL padding too), as
    # in tflite_runtime; a U array as UTF-8.
    it.set_tensor(ins[0]["index"], np.full(10, b"ab\0\0", dtype="S5"))
    it.set_tensor(ins[1]["index"], np.array([0, 0, 9], dtype=np.int64))
    it.invoke()
    assert list(it.get_tensor(o)) == [b"ab\0\0\0"] * 3
    it.set_tensor(ins[0]["index"], np.full(10, "é"))
    it.invoke()
    assert it.get_tensor(o)[0] == "é".encode()
    with pytest.raises(ValueError, match="Got value of type FLOAT32 but expected type STRING"):
        it.set_tensor(ins[0]["index"], np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="Dimension mismatch"):
        it.set_tensor(ins[0]["index"], np.array([b"a"] * 9, dtype=object))


def test_zero_dim(make, built):
    # interpreter_test.py testStringZeroDim: 20 bytes, 16 of them NULs.
    data = b"abcd" + bytes(16)
    it = make(built("string_0d"))
    it.allocate_tensors()
    d = it.get_input_details()[0]
    assert list(d["shape"]) == []
    it.set_tensor(d["index"], np.array(data))
    t = it.get_tensor(d["index"])
    assert t.shape == () and len(t.item(0)) == len(data)
    it.invoke()
    out = it.get_tensor(it.get_output_details()[0]["index"])
    assert out.shape == (1,) and out[0] == data
    # (np.array(b"") is an S1 array: its one item is b"\0" at full width.)
    it.set_tensor(d["index"], np.array(b"", dtype=object))
    it.invoke()
    assert it.get_tensor(it.get_output_details()[0]["index"])[0] == b""


def test_shared_model_served_equals_local(daemon, model):
    path = model("ops/tf_testdata_string.bin")
    its = [accel.Interpreter(model_path=path, socket=daemon.socket) for _ in range(2)]
    its.append(accel.Interpreter(model_path=path, local=True))
    for it in its:
        it.allocate_tensors()
    d = its[0].get_input_details()[0]
    o = its[0].get_output_details()[0]["index"]
    n = int(np.prod(d["shape"]))
    results = []
    for k, it in enumerate(its):
        items = [bytes([97 + (j + k) % 26, 0, j % 7]) + b"\0" * (j % 3) for j in range(n)]
        it.set_tensor(d["index"], np.array(items, dtype=object).reshape(d["shape"]))
    for it in its:
        it.invoke()
        results.append(it.get_tensor(o))
    assert its[1].execution_info()["shared"]
    for k, out in enumerate(results):
        items = [bytes([97 + (j + k) % 26, 0, j % 7]) + b"\0" * (j % 3) for j in range(n)]
        assert out.dtype == object and list(out.ravel()) == items


def test_stateful_with_strings_per_interpreter(daemon, built):
    path = built("counter_string")
    a, b = (accel.Interpreter(model_path=path, socket=daemon.socket) for _ in range(2))
    for it in (a, b):
        it.allocate_tensors()
    for step in range(1, 4):
        for who, it in enumerate((a, b)):
            x, s, idx = (d["index"] for d in it.get_input_details())
            y, g = (d["index"] for d in it.get_output_details())
            it.set_tensor(x, np.array([1 + who, 1], np.float32))
            it.set_tensor(s, np.array([f"{who}-{step}-{k}\0".encode() for k in range(4)], dtype=object))
            it.set_tensor(idx, np.array([step % 4, 3], np.int32))
            it.invoke()
            np.testing.assert_array_equal(it.get_tensor(y), [10 + step * (1 + who), 20 + step])
            assert list(it.get_tensor(g)) == [f"{who}-{step}-{step % 4}\0".encode(), f"{who}-{step}-3\0".encode()]
    a.reset_all_variables()
    a.invoke()
    np.testing.assert_array_equal(a.get_tensor(a.get_output_details()[0]["index"]), [11, 21])


def test_malformed_list_refused(daemon, built):
    it = accel.Interpreter(model_path=built("gather_string"), socket=daemon.socket)
    it.allocate_tensors()
    bad = np.array([9, 48] + [48] * 10, "<i4").tobytes()   # says 9 strings, the tensor has 10
    with pytest.raises(ValueError, match="10 elements"):
        it._native.write_string(0, bad)


def test_over_frame_limit():
    d = Daemon("--max-frame-bytes", "64K")
    try:
        tool = os.environ.get("TFB_WRITE_BIN")
        if not tool:
            pytest.skip("TFB_WRITE_BIN is not set")
        path = os.path.join(d.dir, "gather_string.tflite")
        subprocess.run([tool, "gather_string", path], check=True)
        it = accel.Interpreter(model_path=path, socket=d.socket)
        it.allocate_tensors()
        ins, o = it.get_input_details(), it.get_output_details()[0]["index"]
        it.set_tensor(ins[1]["index"], np.array([0, 0, 0], np.int64))
        it.set_tensor(ins[0]["index"], np.array([b"x" * 10000] * 10, dtype=object))
        with pytest.raises(accel.ResourceExhausted, match=r"max_frame_bytes \(65536\)"):
            it.invoke()
        # 40 KB in, three copies out: too big for one reply.
        it.set_tensor(ins[0]["index"], np.array([b"y" * 40000] + [b"z"] * 9, dtype=object))
        with pytest.raises(accel.ResourceExhausted, match=r"max_frame_bytes \(65536\)"):
            it.invoke()
        it.set_tensor(ins[1]["index"], np.array([1, 2, 3], np.int64))
        it.invoke()
        assert list(it.get_tensor(o)) == [b"z"] * 3
    finally:
        d.stop()


def test_resized_string_input(make, built):
    it = make(built("gather_string"))
    ins = it.get_input_details()
    it.resize_tensor_input(ins[0]["index"], [5])
    it.allocate_tensors()
    assert list(it.get_input_details()[0]["shape"]) == [5]
    items = [b"v\0", b"w", b"", b"y\0\0", b"z"]
    it.set_tensor(ins[0]["index"], np.array(items, dtype=object))
    it.set_tensor(ins[1]["index"], np.array([4, 0, 3], np.int64))
    it.invoke()
    assert list(it.get_tensor(it.get_output_details()[0]["index"])) == [b"z", b"v\0", b"y\0\0"]
