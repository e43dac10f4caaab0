# SPDX-License-Identifier: Apache-2.0
"""accel.Interpreter has tflite_runtime's API shape, zero-copy tensor()
views, resizing, signature runners and the settings forms."""

import inspect
import json

import numpy as np
import pytest

import accel

# tf.lite.Interpreter / tflite_runtime.interpreter.Interpreter as of the
# newest interpreter.py (TF 2.18+, ai_edge_litert): public methods with their
# parameters (after self), and the private helpers that TensorFlow's own code
# and tests call.
TFLITE_INTERPRETER = {
    "__init__": ["model_path", "model_content", "experimental_delegates", "num_threads",
                 "experimental_op_resolver_type", "experimental_preserve_all_tensors",
                 "experimental_disable_delegate_clustering", "experimental_default_delegate_latest_features"],
    "allocate_tensors": [],
    "get_input_details": [],
    "get_output_details": [],
    "get_signature_list": [],
    "get_signature_runner": ["signature_key"],
    "get_tensor": ["tensor_index", "subgraph_index"],
    "get_tensor_details": ["subgraph_index"],
    "invoke": [],
    "num_subgraphs": [],
    "reset_all_variables": [],
    "resize_tensor_input": ["input_index", "tensor_size", "strict"],
    "set_tensor": ["tensor_index", "value"],
    "tensor": ["tensor_index"],
    "_ensure_safe": [],
    "_get_full_signature_list": [],
    "_get_op_details": ["op_index"],
    "_get_ops_details": [],
    "_get_tensor_details": ["tensor_index", "subgraph_index"],
    "_safe_to_run": [],
}
TFLITE_DETAIL_KEYS = {"name", "index", "shape", "shape_signature", "dtype", "quantization",
                      "quantization_parameters", "sparsity_parameters"}
TFLITE_QUANT_KEYS = {"scales", "zero_points", "quantized_dimension"}


def _params(fn):
    return [p for p in inspect.signature(fn).parameters if p != "self"]


@pytest.mark.parametrize("name", sorted(TFLITE_INTERPRETER))
def test_method_table(name):
    ours = getattr(accel.Interpreter, name, None)
    assert callable(ours), f"accel.Interpreter lacks {name}"
    params = _params(ours)
    # tflite_runtime's parameters come first, in its order; ours follow.
    assert params[:len(TFLITE_INTERPRETER[name])] == TFLITE_INTERPRETER[name]


def test_method_table_against_installed_tflite_runtime():
    tflite = pytest.importorskip("tflite_runtime.interpreter", reason="tflite_runtime is not installed")
    theirs = {n for n, v in vars(tflite.Interpreter).items() if callable(v) and not n.startswith("__")}
    missing = sorted(n for n in theirs if not hasattr(accel.Interpreter, n) and not n.startswith("_"))
    assert not missing, f"accel.Interpreter lacks {missing}"


# tflite_runtime.interpreter's module-level names.
TFLITE_MODULE = ["Delegate", "Interpreter", "InterpreterWithCustomOps", "SignatureRunner", "OpResolverType",
                 "load_delegate"]


@pytest.mark.parametrize("name", TFLITE_MODULE)
def test_module_table(name):
    import accel.interpreter as mod
    assert hasattr(mod, name) and getattr(accel, name) is getattr(mod, name)


def test_op_resolver_and_delegates(daemon, model):
    path = model("mobilenet_v1_0.25_128_quant.tflite")
    it = accel.Interpreter(path, socket=daemon.socket, experimental_op_resolver_type=accel.OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    assert {p["driver"] for p in it.execution_info()["partitions"]} == {"reference"}
    assert {m.name for m in accel.OpResolverType} == {"AUTO", "BUILTIN", "BUILTIN_REF",
                                                      "BUILTIN_WITHOUT_DEFAULT_DELEGATES"}
    with pytest.raises(ValueError, match="settings"):
        accel.load_delegate("libedgetpu.so.1")
    with pytest.raises(ValueError, match="settings"):
        accel.Interpreter(path, socket=daemon.socket, experimental_delegates=[object()])


def test_own_arguments():
    assert _params(accel.Interpreter.__init__)[8:] == ["settings", "socket", "priority", "deadline_ms", "local",
                                                          "preference", "prepare_deadline_ms", "lane"]


def test_details_shape(daemon, model):
    it = accel.Interpreter(model_path=model("mobilenet_v1_0.25_128_quant.tflite"), socket=daemon.socket)
    it.allocate_tensors()
    for d in it.get_input_details() + it.get_output_details() + it.get_tensor_details():
        assert set(d) == TFLITE_DETAIL_KEYS
        assert set(d["quantization_parameters"]) == TFLITE_QUANT_KEYS
        assert d["shape"].dtype == np.int32 and d["shape_signature"].dtype == np.int32
        assert d["quantization_parameters"]["scales"].dtype == np.float32
        assert d["quantization_parameters"]["zero_points"].dtype == np.int32
    d = it.get_input_details()[0]
    assert d["dtype"] is np.uint8
    assert list(d["shape"]) == [1, 128, 128, 3]
    assert d["quantization"] == (0.0078125, 128)
    # Per-channel quantization comes through whole: some weight tensor of
    # this model has one scale per output channel or per tensor.
    weights = [t for t in it.get_tensor_details() if len(t["quantization_parameters"]["scales"]) > 0]
    assert weights and all(len(t["quantization_parameters"]["scales"]) ==
                           len(t["quantization_parameters"]["zero_points"]) for t in weights)
    assert len(it.get_tensor_details()) > len(it.get_input_details()) + len(it.get_output_details())
    assert it._get_ops_details()[0]["op_name"] in ("CONV_2D", "DEPTHWISE_CONV_2D")


def _hello(daemon, model, **kw):
    it = accel.Interpreter(model_path=model("hello_world_float.tflite"), socket=daemon.socket, **kw)
    it.allocate_tensors()
    return it


def test_zero_copy_views(daemon, model):
    it = _hello(daemon, model, settings={"delegate": "NONE"})
    i = it.get_input_details()[0]["index"]
    o = it.get_output_details()[0]["index"]
    inp, out = it.tensor(i), it.tensor(o)
    # The view is the interpreter's memory: two calls share it, writes
    # through it are what get_tensor sees, and invoke's results appear in
    # the output view without a copy.
    assert np.shares_memory(inp(), inp())
    inp()[0, 0] = 1.5
    assert it.get_tensor(i)[0, 0] == np.float32(1.5)
    it.invoke()
    first = out()[0, 0]
    assert first == it.get_tensor(o)[0, 0]
    assert it.execution_info()["zero_copy"]
    inp()[0, 0] = -1.0
    it.invoke()
    view = out()
    assert view[0, 0] == it.get_tensor(o)[0, 0] and view[0, 0] != first
    # get_tensor copies.
    assert not np.shares_memory(it.get_tensor(o), view)
    # Memory cannot move under a live view, as in tflite_runtime.
    with pytest.raises(RuntimeError, match="reference to internal data"):
        it.allocate_tensors()
    del view
    it.allocate_tensors()


def test_zero_copy_local(model):
    it = accel.Interpreter(model_path=model("hello_world_float.tflite"), local=True)
    it.allocate_tensors()
    i = it.get_input_details()[0]["index"]
    it.tensor(i)()[0, 0] = 0.5
    it.invoke()
    assert it.tensor(it.get_output_details()[0]["index"])()[0, 0] == it.get_tensor(it.get_output_details()[0]["index"])[0, 0]


def test_resize(daemon, model):
    it = _hello(daemon, model)
    d = it.get_input_details()[0]
    assert list(d["shape_signature"]) == [-1, 1]
    x = np.linspace(0.0, 3.0, 5, dtype=np.float32).reshape(5, 1)
    it.resize_tensor_input(d["index"], [5, 1], strict=True)
    it.allocate_tensors()
    assert list(it.get_input_details()[0]["shape"]) == [5, 1]
    it.set_tensor(d["index"], x)
    it.invoke()
    batch = it.get_tensor(it.get_output_details()[0]["index"])
    assert batch.shape == (5, 1)
    # Each row equals the single-row result: resizing is real batching.
    one = _hello(daemon, model)
    for k in range(5):
        one.set_tensor(d["index"], x[k:k + 1])
        one.invoke()
        assert one.get_tensor(one.get_output_details()[0]["index"])[0, 0] == pytest.approx(batch[k, 0], abs=1e-5)
    with pytest.raises(ValueError, match="unknown dimensions"):
        it.resize_tensor_input(d["index"], [5, 2], strict=True)


def test_signature_runner(daemon, model):
    it = accel.Interpreter(model_path=model("simple_add_model.tflite"), socket=daemon.socket)
    assert it.get_signature_list() == {"serving_default": {"inputs": ["input_1", "input_2"], "outputs": ["add"]}}
    run = it.get_signature_runner()
    ins = run.get_input_details()
    assert set(ins) == {"input_1", "input_2"} and ins["input_1"]["dtype"] is np.int8
    a = np.full((1, 128, 128, 1), 10, np.int8)
    b = np.full((1, 128, 128, 1), -3, np.int8)
    out = run(input_1=a, input_2=b)
    assert set(out) == {"add"} and out["add"].shape == (1, 128, 128, 1)
    # Same as the plain interpreter API on the same values.
    it2 = accel.Interpreter(model_path=model("simple_add_model.tflite"), socket=daemon.socket)
    it2.allocate_tensors()
    d = it2.get_input_details()
    it2.set_tensor(d[0]["index"], a)
    it2.set_tensor(d[1]["index"], b)
    it2.invoke()
    np.testing.assert_array_equal(out["add"], it2.get_tensor(it2.get_output_details()[0]["index"]))
    # A batch of two through the runner resizes the inputs.
    out2 = run(input_1=np.concatenate([a, a]), input_2=np.concatenate([b, b]))
    assert out2["add"].shape == (2, 128, 128, 1)
    np.testing.assert_array_equal(out2["add"][1], out["add"][0])
    with pytest.raises(ValueError, match="not found"):
        it.get_signature_runner("nope")
    with pytest.raises(ValueError, match="Invalid Input name"):
        run(input_1=a, bogus=b)


def test_settings_forms_and_threads(daemon, model):
    path = model("mobilenet_v1_0.25_128_quant.tflite")
    as_dict = accel.Interpreter(model_path=path, socket=daemon.socket, settings={"delegate": "NONE"})
    as_text = accel.Interpreter(model_path=path, socket=daemon.socket, settings=json.dumps({"delegate": "NONE"}))
    for it in (as_dict, as_text):
        it.allocate_tensors()
        assert {p["driver"] for p in it.execution_info()["partitions"]} == {"reference"}
    # The same settings share one compiled instance in acceld.
    assert as_text.execution_info()["shared"]
    threaded = accel.Interpreter(model_path=path, socket=daemon.socket, num_threads=2)
    threaded.allocate_tensors()
    assert "xnnpack" in {p["driver"] for p in threaded.execution_info()["partitions"]}
    with pytest.raises(ValueError, match="not JSON"):
        accel.Interpreter(model_path=path, socket=daemon.socket, settings="{nope")
    for bad in (-1, 0):
        with pytest.raises(ValueError, match="^num_threads should >= 1$"):
            accel.Interpreter(model_path=path, socket=daemon.socket, num_threads=bad)


def test_model_content_and_priority(daemon, model):
    with open(model("hello_world_int8.tflite"), "rb") as f:
        content = f.read()
    it = accel.Interpreter(model_content=content, socket=daemon.socket, priority="HIGH", deadline_ms=60000)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.array([[5]], np.int8))
    it.invoke()
    assert it.get_tensor(it.get_output_details()[0]["index"]).dtype == np.int8
    with pytest.raises(ValueError):
        accel.Interpreter(model_content=b"x", model_path="y")
    with pytest.raises(ValueError, match="priority"):
        accel.Interpreter(model_content=content, priority="URGENT")
    with pytest.raises(ValueError, match="preference"):
        accel.Interpreter(model_content=content, preference="FASTEST")


def test_reset_all_variables(daemon, model):
    path = model("micro_speech_lstm.tflite")
    local = accel.Interpreter(model_path=path, local=True)
    local.allocate_tensors()
    d = local.get_input_details()[0]
    o = local.get_output_details()[0]["index"]
    x = np.full(d["shape"], 7, d["dtype"])
    local.set_tensor(d["index"], x)
    local.invoke()
    first = local.get_tensor(o)
    local.invoke()
    assert not np.array_equal(local.get_tensor(o), first), "state should carry over between invokes"
    local.reset_all_variables()
    local.invoke()
    np.testing.assert_array_equal(local.get_tensor(o), first)
    # Served: each interpreter keeps its own state, and reset puts it back
    # to what a new interpreter starts with, without touching the other.
    served, other = (accel.Interpreter(model_path=path, socket=daemon.socket) for _ in range(2))
    for it in (served, other):
        it.allocate_tensors()
        it.set_tensor(d["index"], x)
    served.invoke()
    np.testing.assert_array_equal(served.get_tensor(o), first)
    served.invoke()
    second = served.get_tensor(o)
    other.invoke()
    np.testing.assert_array_equal(other.get_tensor(o), first)
    served.reset_all_variables()
    served.invoke()
    np.testing.assert_array_equal(served.get_tensor(o), first)
    other.invoke()
    np.testing.assert_array_equal(other.get_tensor(o), second)
    stateless = _hello(daemon, model)
    stateless.reset_all_variables()


def test_output_sized_at_invoke(daemon, model, models):
    """An output declared with an empty shape gets its real size at invoke;
    libaccel then has acceld return the outputs inline."""
    it = accel.Interpreter(model_path=model("style_transfer_dynamic_range.tflite"), socket=daemon.socket)
    it.allocate_tensors()
    out = it.get_output_details()[0]
    assert list(out["shape"]) == []
    inputs = [np.fromfile(f"{models}/golden/style_transfer_dynamic_range/input_{k}.bin", d["dtype"])
              .reshape(d["shape"]) for k, d in enumerate(it.get_input_details())]
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], x)
    it.invoke()
    first = it.get_tensor(out["index"])
    assert first.shape == tuple(it.get_output_details()[0]["shape"]) and first.size > 1
    assert not it.execution_info()["zero_copy"]
    view = it.tensor(out["index"])()
    np.testing.assert_array_equal(view, first)
    # The output lives outside the shared buffer now: invoking under a live
    # view of it is refused as in tflite_runtime; without one it repeats.
    with pytest.raises(RuntimeError, match="reference to internal data"):
        it.invoke()
    del view
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(out["index"]), first)
