# SPDX-License-Identifier: Apache-2.0
"""Drop-in behaviour of the newest tf.lite / tflite_runtime Interpreter
(issue 24): delegates and their fallback idiom, argument checks and texts,
TensorFlow's private helpers, live views under invoke(), string tensors,
local=True's default delegate and the tf.lite-shaped namespace. Each
behaviour runs served (a real acceld) and in-process (local=True)."""

import inspect

import numpy as np
import pytest

import accel
import accel.interpreter as interpreter_wrapper


@pytest.fixture(params=["served", "local"])
def make(request, daemon):
    """make(path, **kw): an Interpreter served by the test daemon or in-process."""
    def build(path=None, **kw):
        if request.param == "local":
            kw["local"] = True
        else:
            kw["socket"] = daemon.socket
        return accel.Interpreter(model_path=path, **kw) if path is not None else accel.Interpreter(**kw)
    build.kind = request.param
    return build


# ---- delegates ----

def test_load_delegate_raises_value_error_naming_library():
    with pytest.raises(ValueError) as e:
        accel.load_delegate("libedgetpu.so.1", {"device": "usb"})
    text = str(e.value)
    assert text.startswith("Failed to load delegate from libedgetpu.so.1\n")
    assert "acceld chooses the accelerator" in text and "settings={'delegate'" in text
    # ctypes raises OSError for a library that is not there: both idioms catch it.
    assert isinstance(e.value, OSError) and isinstance(e.value, accel.AccelError)
    with pytest.raises(ValueError, match="Failed to load delegate from x.so"):
        accel.Delegate("x.so")


def test_delegate_fallback_idiom_runs_on_cpu(make, model):
    path = model("hello_world_float.tflite")
    try:
        delegate = interpreter_wrapper.load_delegate("libedgetpu.so.1")
    except ValueError:
        delegate = None
    it = make(path, experimental_delegates=[delegate] if delegate else None)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.array([[1.0]], np.float32))
    it.invoke()
    assert it.get_tensor(it.get_output_details()[0]["index"]).shape == (1, 1)
    # An empty list is no delegate; a foreign delegate object is refused.
    make(path, experimental_delegates=[])
    with pytest.raises(ValueError, match="acceld chooses the accelerator"):
        make(path, experimental_delegates=[object()])


def test_interpreter_with_custom_ops(make, model, daemon):
    path = model("hello_world_float.tflite")
    kw = {"local": True} if make.kind == "local" else {"socket": daemon.socket}
    it = accel.InterpreterWithCustomOps(model_path=path, **kw)
    assert isinstance(it, accel.Interpreter)
    it.allocate_tensors()
    it.invoke()
    it = accel.InterpreterWithCustomOps(custom_op_registerers=[], model_path=path, **kw)
    with pytest.raises(accel.Unsupported, match="custom op registerers"):
        accel.InterpreterWithCustomOps(custom_op_registerers=["TF_AddCustomOp"], model_path=path, **kw)


# ---- signatures and argument checks ----

def test_constructor_positional_order(model):
    params = list(inspect.signature(accel.Interpreter.__init__).parameters)[1:]
    assert params[6:8] == ["experimental_disable_delegate_clustering",
                           "experimental_default_delegate_latest_features"]
    assert inspect.signature(accel.Interpreter.__init__).parameters[
        "experimental_op_resolver_type"].default is accel.OpResolverType.AUTO
    # The 7th and 8th positional arguments are today's booleans, accepted.
    it = accel.Interpreter(model("hello_world_float.tflite"), None, None, 1, accel.OpResolverType.AUTO, False,
                           True, True, local=True)
    it.allocate_tensors()


def test_argument_checks(make, model):
    path = model("hello_world_float.tflite")
    with pytest.raises(ValueError, match="^type of num_threads should be int$"):
        make(path, num_threads="2")
    # The newest interpreter.py: below 1 is refused, -1 and 0 included.
    for bad in (-2, -1, 0):
        with pytest.raises(ValueError, match="^num_threads should >= 1$"):
            make(path, num_threads=bad)
    with pytest.raises(ValueError, match="^type of num_threads should be int$"):
        make(path, num_threads=4.2)
    with pytest.raises(ValueError, match="^Unrecognized passed in op resolver type: 7$"):
        make(path, experimental_op_resolver_type=7)
    make(path, num_threads=1).allocate_tensors()
    with pytest.raises(ValueError, match="^`model_path` or `model_content` must be specified.$"):
        make()
    with pytest.raises(ValueError, match="^Can't both provide `model_path` and `model_content`$"):
        make(path, model_content=b"TFL3")
    with pytest.raises(ValueError, match="Could not open 'totally_invalid_file_name'"):
        make("totally_invalid_file_name")
    with pytest.raises(ValueError, match="Model provided has model identifier '"):
        make(model_content=b"garbage")


# ---- TensorFlow's helpers ----

def test_private_helpers(make, model):
    it = make(model("mobilenet_v1_0.25_128_quant.tflite"))
    it.allocate_tensors()
    assert it.num_subgraphs() == 1
    inp = it.get_input_details()[0]
    same = it._get_tensor_details(inp["index"], subgraph_index=0)
    assert same["name"] == inp["name"] and list(same["shape"]) == list(inp["shape"])
    with pytest.raises(ValueError, match="Invalid tensor index"):
        it._get_tensor_details(10 ** 6, 0)
    with pytest.raises(ValueError, match="subgraph_index is out of range: 1"):
        it.get_tensor_details(subgraph_index=1)
    details = it.get_tensor_details(subgraph_index=0)
    assert [d["index"] for d in details] == list(range(len(details)))
    ops = it._get_ops_details()
    assert ops and ops[0]["op_name"] == "CONV_2D"
    first = it._get_op_details(0)
    for key in ("inputs", "outputs"):
        assert isinstance(first[key], np.ndarray) and first[key].dtype == np.int32
        np.testing.assert_array_equal(first[key], ops[0][key])
    assert first["operand_types"][0] == np.uint8 and first["result_types"] == [np.uint8]
    assert first["operand_types"][-1] == np.int32  # the bias
    with pytest.raises(ValueError, match="Invalid node index"):
        it._get_op_details(len(ops))


def test_invoke_with_live_view_raises(make, model):
    it = make(model("hello_world_float.tflite"))
    it.allocate_tensors()
    assert it._safe_to_run()
    it._ensure_safe()
    view = it.tensor(it.get_input_details()[0]["index"])()
    assert not it._safe_to_run()
    with pytest.raises(RuntimeError, match="at least 1 reference to internal data"):
        it.invoke()
    with pytest.raises(RuntimeError, match="at least 1 reference to internal data"):
        it.resize_tensor_input(it.get_input_details()[0]["index"], [1, 1])
    del view
    it.invoke()


# ---- strings ----

def test_strings_in_process_bytes_exact(model):
    it = accel.Interpreter(model_path=model("ops/tf_testdata_string.bin"), local=True)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    o = it.get_output_details()[0]["index"]
    assert d["dtype"] == np.bytes_
    n = int(np.prod(d["shape"]))
    # NULs inside and at the end of items are kept, both ways.
    items = [bytes([97 + k % 26, 0, k % 7]) + b"\0" * (k % 3) for k in range(n)]
    it.set_tensor(d["index"], np.array(items, dtype=object).reshape(d["shape"]))
    it.invoke()
    out = it.get_tensor(o)
    # tflite_runtime's get_tensor: an object array whose items are bytes.
    assert out.dtype == object and out.size == n
    assert list(out.ravel()) == items
    np.testing.assert_array_equal(it.get_tensor(d["index"]).ravel(), np.array(items, dtype=object))
    # An S array's items go in with their full width (NUL padding too), as
    # in tflite_runtime; a U array as UTF-8.
    it.set_tensor(d["index"], np.full(d["shape"], b"ab\0\0", dtype="S5"))
    it.invoke()
    assert it.get_tensor(o).ravel()[0] == b"ab\0\0\0"
    it.set_tensor(d["index"], np.full(d["shape"], "é"))
    it.invoke()
    assert it.get_tensor(o).ravel()[0] == "é".encode()
    with pytest.raises(ValueError, match="Got value of type FLOAT32 but expected type STRING"):
        it.set_tensor(d["index"], np.zeros(d["shape"], np.float32))


# Served strings: tests/python/test_strings.py.


# ---- local=True's default ----

def test_local_defaults_to_xnnpack(model):
    path = model("mobilenet_v1_0.25_128_quant.tflite")
    it = accel.Interpreter(model_path=path, local=True)
    it.allocate_tensors()
    assert "xnnpack" in {p["driver"] for p in it.execution_info()["partitions"]}
    for kw in ({"experimental_op_resolver_type": accel.OpResolverType.BUILTIN_REF},
               {"experimental_preserve_all_tensors": True}):
        ref = accel.Interpreter(model_path=path, local=True, **kw)
        ref.allocate_tensors()
        assert {p["driver"] for p in ref.execution_info()["partitions"]} == {"reference"}


def test_local_default_falls_back_to_reference(model):
    # String RESHAPE: nothing XNNPACK can take, the reference kernels run it.
    it = accel.Interpreter(model_path=model("ops/tf_testdata_string.bin"), local=True)
    it.allocate_tensors()
    assert "reference" in {p["driver"] for p in it.execution_info()["partitions"]}


# ---- tf.lite namespace ----

def test_tf_lite_namespace(make, model):
    import accel.tf as tf
    from accel import lite
    assert tf.lite is lite and tf.lite.Interpreter is accel.Interpreter
    assert tf.lite.experimental.load_delegate is accel.load_delegate
    assert tf.lite.experimental.OpResolverType is accel.OpResolverType
    assert lite.InterpreterWithCustomOps is accel.InterpreterWithCustomOps
    it = make(model("hello_world_float.tflite"))
    assert isinstance(it, tf.lite.Interpreter)


def test_signature_runner_constructed_directly(make, model):
    it = make(model("simple_add_model.tflite"))
    key = next(iter(it.get_signature_list()))
    run = interpreter_wrapper.SignatureRunner(interpreter=it, signature_key=key)
    assert set(run.get_input_details()) == set(it.get_signature_list()[key]["inputs"])
    with pytest.raises(ValueError, match="^Invalid signature_key provided.$"):
        interpreter_wrapper.SignatureRunner(interpreter=it, signature_key="nope")
    with pytest.raises(ValueError, match="^None signature_key provided.$"):
        interpreter_wrapper.SignatureRunner(interpreter=it)
