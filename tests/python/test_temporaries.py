# SPDX-License-Identifier: Apache-2.0
"""TFLite's tensor numbering (issue 24): the interpreter numbers its
kernels' temporary tensors after the model's, so tflite_runtime counts them
in NumTensors, raises "Tensor with no shape found." for their details and
names the longer count in its bounds message; get_tensor_details() skips
them. accel follows the table of accel/_temporaries.py (TensorFlow's
kernels' AddTensors calls). The counts below are worked out by hand from
each model's operators; each runs served and in-process."""

import os

import numpy as np
import pytest

import accel

NO_SHAPE = "^Tensor with no shape found.$"


@pytest.fixture(params=["served", "local"])
def make(request, daemon):
    def build(path, **kw):
        if request.param == "local":
            kw["local"] = True
        else:
            kw["socket"] = daemon.socket
        return accel.Interpreter(model_path=path, **kw)
    return build


def bounds(i, n):
    return f"^Invalid tensor index {i} exceeds max tensor index {n}$"


def assert_numbering(it, model_tensors, total):
    """Indices [model_tensors, total) are temporaries, `total` is out of
    bounds, and get_tensor_details() lists exactly the model's tensors."""
    for i in range(model_tensors, total):
        with pytest.raises(ValueError, match=NO_SHAPE):
            it._get_tensor_details(i, 0)
    with pytest.raises(ValueError, match=bounds(total, total)):
        it._get_tensor_details(total, 0)
    details = it.get_tensor_details()
    assert [d["index"] for d in details] == list(range(model_tensors))
    assert it._get_tensor_details(model_tensors - 1, 0)["index"] == model_tensors - 1


def test_fully_connected_adds_six_at_init(make, model):
    # hello_world_float: 10 tensors, 3 FULLY_CONNECTED nodes, 6 each.
    it = make(model("hello_world_float.tflite"))
    assert_numbering(it, 10, 28)
    it.allocate_tensors()
    assert_numbering(it, 10, 28)
    with pytest.raises(ValueError, match="^Invalid node index 3 exceeds max node index 3$"):
        it._get_op_details(3)
    # The other tensor calls: a temporary has no data, beyond is the bounds text.
    with pytest.raises(ValueError, match="temporary tensor of a TFLite kernel"):
        it.get_tensor(10)
    with pytest.raises(ValueError, match="temporary tensor of a TFLite kernel"):
        it.set_tensor(27, np.zeros((1, 1), np.float32))
    with pytest.raises(ValueError, match=bounds(28, 28)):
        it.get_tensor(28)
    with pytest.raises(ValueError, match=bounds(28, 28)):
        it.tensor(28)


def test_fc_and_conv_by_op_resolver(make, model):
    # magic_wand: 16 tensors; 2 FULLY_CONNECTED (12 at Init), one float
    # CONV_2D with a 4x1 filter and one DEPTHWISE_CONV_2D.
    path = model("magic_wand.tflite")
    auto = make(path)
    assert_numbering(auto, 16, 28)
    auto.allocate_tensors()
    # The default delegate (XNNPACK) takes the convolutions before Prepare.
    assert_numbering(auto, 16, 28)
    # Without default delegates CONV_2D's Prepare adds its im2col tensor
    # (multithreaded Eigen kernel, one thread: im2col, no HWCN weights);
    # the float depthwise conv adds none.
    keep = make(path, experimental_preserve_all_tensors=True)
    assert_numbering(keep, 16, 28)
    keep.allocate_tensors()
    assert_numbering(keep, 16, 29)
    # Two threads: the HWCN weights instead of im2col, still one.
    two = make(path, num_threads=2,
               experimental_op_resolver_type=accel.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    two.allocate_tensors()
    assert_numbering(two, 16, 29)
    # The reference CONV_2D needs im2col for hybrid weights only.
    ref = make(path, experimental_op_resolver_type=accel.OpResolverType.BUILTIN_REF)
    ref.allocate_tensors()
    assert_numbering(ref, 16, 28)


def test_hybrid_conv_and_reducers(make, model):
    # style_transfer_dynamic_range: 367 tensors; 26 MEAN (4 each at Init);
    # 38 CONV_2D with int8 weights on float inputs, which no default
    # delegate takes: 3 each in Prepare (per-tensor scales), and 16 of them
    # with a 3x3 or 9x9 filter add im2col: 38 * 3 + 16 = 130.
    it = make(model("style_transfer_dynamic_range.tflite"))
    assert_numbering(it, 367, 367 + 104)
    it.allocate_tensors()
    assert_numbering(it, 367, 367 + 104 + 130)


@pytest.mark.parametrize("name,tensors,temporaries", [
    ("micro_speech_lstm.tflite", 27, 12 + 6),      # UNIDIRECTIONAL_SEQUENCE_LSTM 12, FC 6
    ("keyword_scrambled.tflite", 54, 7 * 6 + 5 * 6),  # SVDF 6 each, FC 6 each
    ("movie_review_nl_classifier.tflite", 12, 4 + 2 * 6),  # MEAN 4, FC 6 each
    ("mobilenet_v1_0.25_128_quant.tflite", 89, 0),  # convolutions only: XNNPACK's
])
def test_init_table(daemon, model, name, tensors, temporaries):
    it = accel.Interpreter(model_path=model(name), socket=daemon.socket)
    it.allocate_tensors()
    assert_numbering(it, tensors, tensors + temporaries)


def test_detection_postprocess_counts_two(model):
    # ssd_mobilenet_v1_coco_quant: TFLite_Detection_PostProcess adds its
    # decoded boxes and scores at Init: 176 + 2.
    it = accel.Interpreter(model_path=model("ssd_mobilenet_v1_coco_quant.tflite"), local=True)
    assert_numbering(it, 176, 178)


# ---- against native TensorFlow Lite 2.9 (the oracle) ----

def native_tensor_count(lib, path, last_op, threads):
    """TFLite's tensor count after AllocateTensors, through its C API: the
    model's last node (builtin `last_op`) is replaced by a kernel whose
    Prepare reads TfLiteContext.tensors_size (its first field), so every
    other node's Init and Prepare temporaries are counted. The C API applies
    no default delegate: accel's BUILTIN_WITHOUT_DEFAULT_DELEGATES."""
    import ctypes
    prepare_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

    class Registration(ctypes.Structure):  # TfLiteRegistration, TFLite 2.9
        _fields_ = [("init", ctypes.c_void_p), ("free", ctypes.c_void_p), ("prepare", prepare_t),
                    ("invoke", ctypes.c_void_p), ("profiling_string", ctypes.c_void_p),
                    ("builtin_code", ctypes.c_int32), ("custom_name", ctypes.c_char_p), ("version", ctypes.c_int),
                    ("registration_external", ctypes.c_void_p)]

    seen = []

    def prepare(context, node):
        seen.append(ctypes.c_size_t.from_address(context).value)
        return 0

    hook = prepare_t(prepare)
    for f in ("TfLiteModelCreateFromFile", "TfLiteInterpreterOptionsCreate", "TfLiteInterpreterCreate"):
        getattr(lib, f).restype = ctypes.c_void_p
    vp = ctypes.c_void_p
    model = lib.TfLiteModelCreateFromFile(path.encode())
    options = lib.TfLiteInterpreterOptionsCreate()
    reg = Registration(None, None, hook, None, None, last_op, None, 1, None)
    lib.TfLiteInterpreterOptionsAddBuiltinOp(vp(options), last_op, ctypes.byref(reg), 1, 10)
    lib.TfLiteInterpreterOptionsSetNumThreads(vp(options), threads)
    interp = lib.TfLiteInterpreterCreate(vp(model), vp(options))
    assert interp and lib.TfLiteInterpreterAllocateTensors(vp(interp)) == 0
    lib.TfLiteInterpreterDelete(vp(interp))
    lib.TfLiteInterpreterOptionsDelete(vp(options))
    lib.TfLiteModelDelete(vp(model))
    return seen[-1]


@pytest.fixture(scope="module")
def native_tflite():
    import ctypes
    path = os.environ.get("ACCELD_TFLITE_C_LIB", "")
    if not os.path.isfile(path):
        pytest.skip(f"native TensorFlow Lite 2.9 is missing ({path or 'ACCELD_TFLITE_C_LIB is not set'}): "
                    f"bench/fetch-native-tflite.sh fetches it")
    return ctypes.CDLL(path)


SOFTMAX, LOGISTIC = 25, 14


@pytest.mark.parametrize("name,last_op,threads,expected", [
    ("magic_wand.tflite", SOFTMAX, 1, 16 + 12 + 1),         # FC, CONV_2D im2col
    ("magic_wand.tflite", SOFTMAX, 2, 16 + 12 + 1),         # FC, CONV_2D HWCN weights
    ("mobilenet_v1_0.25_224_float.tflite", SOFTMAX, 1, 88 + 1),   # the 3x3/2 conv's im2col
    ("mobilenet_v1_0.25_224_float.tflite", SOFTMAX, 2, 88 + 15),  # HWCN weights for all 15 convs
    ("mobilenet_v1_0.25_128_quant.tflite", SOFTMAX, 2, 89 + 1),   # uint8: im2col of the 3x3/2 conv
    ("ssd_mobilenet_v1_coco_quant.tflite", LOGISTIC, 1, 176 + 2 + 5),  # post-process 2, im2col 5
    ("keyword_scrambled.tflite", SOFTMAX, 1, 54 + 72),      # SVDF, FC
    ("micro_speech_lstm.tflite", SOFTMAX, 1, 27 + 18),      # UNIDIRECTIONAL_SEQUENCE_LSTM, FC
    ("dtln_noise_suppression.tflite", LOGISTIC, 1, 45 + 30),
])
def test_count_matches_native_tflite(make, model, native_tflite, name, last_op, threads, expected):
    path = model(name)
    assert native_tensor_count(native_tflite, path, last_op, threads) == expected
    it = make(path, num_threads=threads,
              experimental_op_resolver_type=accel.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    with pytest.raises(ValueError, match=NO_SHAPE):
        it._get_tensor_details(expected - 1, 0)
    with pytest.raises(ValueError, match=bounds(expected, expected)):
        it._get_tensor_details(expected, 0)
