# SPDX-License-Identifier: Apache-2.0
"""How many temporary tensors TFLite's interpreter numbers after a model's.

TFLite's builtin kernels ask the interpreter for scratch tensors with
TfLiteContext::AddTensors; the interpreter appends them to the subgraph's
tensor list, after the model's own tensors. tflite_runtime shows them:
NumTensors() counts them, _get_tensor_details(i) of one nothing has given
dims raises ValueError "Tensor with no shape found." (get_tensor_details()
skips those), and the bounds message names the longer count. acceld's
kernels keep their scratch memory outside the tensor list, so accel emulates
the numbering from the model alone, and reports every temporary as one
without a shape.

The table follows TensorFlow's tensorflow/lite/kernels/*.cc from TF 2.9 up
to May 2025 (the kernels TensorFlow's interpreter_test.py was written
against; the same files are LiteRT's tflite/kernels up to commit f016f4199).
LiteRT's 6c4e3a58e (May 2025) moved the temporaries of FULLY_CONNECTED,
BATCH_MATMUL and the reducers from Init to Prepare, so that a node a
delegate takes gets none; see docs/python.md.

Two moments add them:

* Init, when the interpreter is built: every node of the kinds in
  INIT_TEMPORARIES, whether or not a delegate takes the node later.
* Prepare, at the first allocate_tensors(): only nodes TFLite's own kernels
  prepare. With the default delegate (op resolver AUTO or BUILTIN) XNNPACK
  takes the non-hybrid convolutions first; BUILTIN_REF and
  BUILTIN_WITHOUT_DEFAULT_DELEGATES (and experimental_preserve_all_tensors)
  prepare every node, BUILTIN_REF with the reference kernels.
"""

import platform
import struct

# Init: a fixed count per node (the AddTensors calls in each kernel's Init).
INIT_TEMPORARIES = {
    "FULLY_CONNECTED": 6,              # fully_connected.cc
    "BATCH_MATMUL": 7,                 # batch_matmul.cc: 2 adjoint + 5 hybrid
    "MEAN": 4, "SUM": 4, "REDUCE_PROD": 4, "REDUCE_MAX": 4,  # reduce.cc
    "REDUCE_MIN": 4, "REDUCE_ANY": 4, "REDUCE_ALL": 4,
    "ADD_N": 1,                        # add_n.cc
    "RNN": 6,                          # basic_rnn.cc
    "UNIDIRECTIONAL_SEQUENCE_RNN": 6,  # unidirectional_sequence_rnn.cc
    "SVDF": 6,                         # svdf.cc
    "BIDIRECTIONAL_SEQUENCE_RNN": 9,   # bidirectional_sequence_rnn.cc
    "BIDIRECTIONAL_SEQUENCE_LSTM": 19,  # bidirectional_sequence_lstm.cc
    "UNIDIRECTIONAL_SEQUENCE_LSTM": 12,  # unidirectional_sequence_lstm.cc
    "LSTM": 12 + 9,                    # lstm.cc, full kernel: hybrid + ledgers (basic kernel: 0)
    "STABLEHLO_REDUCE_WINDOW": 2,      # stablehlo_reduce_window.cc
    "TFLite_Detection_PostProcess": 2,  # detection_postprocess.cc
}

# Prepare: counted by _prepare_count(); the kernels that add them.
PREPARE_OPS = ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "CONV_3D", "CONV_3D_TRANSPOSE", "RFFT2D")

# The builtin codes of the ops above (schema.fbs BuiltinOperator).
_CODES = {
    3: "CONV_2D", 4: "DEPTHWISE_CONV_2D", 9: "FULLY_CONNECTED", 16: "LSTM", 24: "RNN", 27: "SVDF",
    35: "UNIDIRECTIONAL_SEQUENCE_RNN", 40: "MEAN", 44: "UNIDIRECTIONAL_SEQUENCE_LSTM",
    46: "BIDIRECTIONAL_SEQUENCE_RNN", 52: "BIDIRECTIONAL_SEQUENCE_LSTM", 67: "TRANSPOSE_CONV", 74: "SUM",
    81: "REDUCE_PROD", 82: "REDUCE_MAX", 89: "REDUCE_MIN", 91: "REDUCE_ANY", 106: "ADD_N", 126: "BATCH_MATMUL",
    131: "RFFT2D", 132: "CONV_3D", 140: "REDUCE_ALL", 141: "CONV_3D_TRANSPOSE", 198: "STABLEHLO_REDUCE_WINDOW",
}

_FLOAT32, _INT16, _UINT8, _INT8, _INT4 = 0, 7, 3, 9, 17
_QUANTIZED = (_UINT8, _INT8, _INT16)


# ---- just enough of a flatbuffer reader for the operators' options ----

class _Table:
    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        self.vt = pos - struct.unpack_from("<i", buf, pos)[0]
        self.vt_size = struct.unpack_from("<H", buf, self.vt)[0]

    def _field(self, i):
        o = 4 + 2 * i
        if o >= self.vt_size:
            return 0
        off = struct.unpack_from("<H", self.buf, self.vt + o)[0]
        return self.pos + off if off else 0

    def scalar(self, i, fmt, default):
        p = self._field(i)
        return struct.unpack_from(fmt, self.buf, p)[0] if p else default

    def _deref(self, p):
        return p + struct.unpack_from("<I", self.buf, p)[0]

    def table(self, i):
        p = self._field(i)
        return _Table(self.buf, self._deref(p)) if p else None

    def vector(self, i):
        """(start, length) of a vector field, (0, 0) when absent."""
        p = self._field(i)
        if not p:
            return 0, 0
        v = self._deref(p)
        return v + 4, struct.unpack_from("<I", self.buf, v)[0]

    def tables(self, i):
        start, n = self.vector(i)
        return [_Table(self.buf, self._deref(start + 4 * k)) for k in range(n)]

    def ints(self, i):
        start, n = self.vector(i)
        return list(struct.unpack_from(f"<{n}i", self.buf, start)) if n else []

    def string(self, i):
        start, n = self.vector(i)
        return bytes(self.buf[start:start + n]).decode("utf-8", "replace") if start else None


def _operators(buf):
    """Per subgraph: [(op name or None, inputs, outputs, options table or
    None)]."""
    model = _Table(buf, struct.unpack_from("<I", buf, 0)[0])
    names = []
    for code in model.tables(1):
        builtin = max(code.scalar(0, "<b", 0), code.scalar(3, "<i", 0))
        if builtin == 32:  # CUSTOM
            names.append(code.string(1))
        elif builtin == 6:
            names.append("DEQUANTIZE")
        else:
            names.append(_CODES.get(builtin))
    graphs = []
    for g in model.tables(2):
        ops = []
        for op in g.tables(3):
            k = op.scalar(0, "<I", 0)
            ops.append((names[k] if k < len(names) else None, op.ints(1), op.ints(2), op.table(4)))
        graphs.append(ops)
    return graphs


# ---- the Prepare rules ----

def _conv2d(op_in, opts, tensors, resolver_ref, num_threads):
    """conv.cc: AllocateTemporaryTensorsIfRequired."""
    inp, flt = tensors[op_in[0]], tensors[op_in[1]]
    stride_w, stride_h = (opts.scalar(1, "<i", 0), opts.scalar(2, "<i", 0)) if opts else (0, 0)
    dil_w, dil_h = (opts.scalar(4, "<i", 1), opts.scalar(5, "<i", 1)) if opts else (1, 1)
    hybrid = inp["type"] == _FLOAT32 and flt["type"] in (_UINT8, _INT8, _INT4)
    scales = flt["scales"]
    per_channel = hybrid and flt["type"] in (_INT8, _INT4) and len(set(scales)) > 1
    # CONV_2D's kernel: reference with BUILTIN_REF; else multithreaded Eigen
    # where TFLite builds without ruy (x86), ruy's generic one on arm64.
    kernel = "ref" if resolver_ref else ("generic" if platform.machine() in ("aarch64", "arm64") else "mt")
    dilated = dil_w != 1 or dil_h != 1
    supports_mt = (kernel == "mt" and num_threads != 1 and not hybrid and not dilated and flt["constant"])
    hwcn = inp["type"] == _FLOAT32 and supports_mt
    fh, fw = (flt["shape"][1], flt["shape"][2]) if len(flt["shape"]) == 4 else (1, 1)
    wants_im2col = dilated or stride_w != 1 or stride_h != 1 or fh != 1 or fw != 1
    if hwcn or not wants_im2col:
        im2col = False
    elif kernel == "ref":
        im2col = hybrid
    elif kernel == "generic":
        im2col = True
    else:
        im2col = inp["type"] in _QUANTIZED or not supports_mt
    n = int(im2col) + int(hwcn)
    if hybrid:
        n += 3 + (2 if per_channel else 0)
    return n


def _static(t, tensors, dequantized):
    """A constant, or a DEQUANTIZE of one (float16 or int8 weights that
    XNNPACK unpacks once, as it does)."""
    return tensors[t]["constant"] or t in dequantized


def _prepare_count(name, op_in, opts, tensors, resolver, num_threads, dequantized):
    """Temporaries node `name` adds in Prepare, 0 when a default delegate
    takes it first."""
    ref = resolver == "ref"

    def t(k):
        return tensors[op_in[k]] if len(op_in) > k and op_in[k] >= 0 else None

    if name in ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV"):
        inp, flt = (t(2), t(1)) if name == "TRANSPOSE_CONV" else (t(0), t(1))
        if inp is None or flt is None:
            return 0
        hybrid = inp["type"] == _FLOAT32 and flt["type"] in (_UINT8, _INT8, _INT4)
        if (resolver == "default" and not hybrid and _static(op_in[1], tensors, dequantized)
                and inp["type"] in (_FLOAT32, _UINT8, _INT8)):
            return 0  # XNNPACK's
        if name == "CONV_2D":
            return _conv2d(op_in, opts, tensors, ref, num_threads)
        if name == "DEPTHWISE_CONV_2D":  # depthwise_conv.cc: hybrid only
            return 3 if inp["type"] == _FLOAT32 and flt["type"] == _INT8 else 0
        n = 0 if ref else 2  # transpose_conv.cc: col2im + transposed weights
        n += 1 if inp["type"] in _QUANTIZED else 0  # scratch
        n += 3 if inp["type"] == _FLOAT32 and flt["type"] == _INT8 else 0
        return n
    if name == "CONV_3D":  # conv3d.cc: im2col, generic optimized kernel only
        flt = t(1)
        if ref or flt is None or not opts:
            return 0
        strides = [opts.scalar(i, "<i", 0) for i in (1, 2, 3)]
        dilations = [opts.scalar(i, "<i", 1) for i in (5, 6, 7)]
        spatial = list(flt["shape"][:3])
        return int(any(s != 1 for s in strides + dilations + spatial))
    if name == "CONV_3D_TRANSPOSE":  # conv3d_transpose.cc: col2im
        return 0 if ref else 1
    if name == "RFFT2D":  # rfft2d.cc: two FFT working areas
        return 2
    return 0


def _init_count(name, op_in, opts):
    if name == "LSTM":
        # LSTMOptions.kernel_type (field 3): 0 FULL, 1 BASIC (no temporaries).
        basic = (opts.scalar(3, "<b", 0) == 1) if opts else len(op_in) == 5
        return 0 if basic else INIT_TEMPORARIES["LSTM"]
    return INIT_TEMPORARIES.get(name, 0)


def count(model_bytes, graph_tensors, resolver, num_threads):
    """[(init, prepare)] per subgraph: the temporaries TFLite numbers after
    the subgraph's tensors when the interpreter is built and after its first
    allocate_tensors(). `model_bytes` is the model (bytes or a mapping; not
    kept), `graph_tensors` _native.model_info()'s tensors per subgraph,
    `resolver` "default" (AUTO/BUILTIN: XNNPACK first), "ref" (BUILTIN_REF)
    or "builtin" (without default delegates), `num_threads` what
    tflite_runtime gives its interpreter (1 when None)."""
    with memoryview(model_bytes) as buf:
        try:
            return _count(buf, graph_tensors, resolver, num_threads)
        except (struct.error, IndexError, ValueError):
            return [(0, 0) for _ in graph_tensors]


def _count(buf, graph_tensors, resolver, num_threads):
    graphs = _operators(buf)
    out = []
    for s, tensors in enumerate(graph_tensors):
        ops = graphs[s] if s < len(graphs) else []
        if any(i >= len(tensors) for _, op_in, op_out, _ in ops for i in op_in + op_out):
            out.append((0, 0))
            continue
        dequantized = {o for name, op_in, op_out, _ in ops if name == "DEQUANTIZE" and op_in
                       and op_in[0] >= 0 and tensors[op_in[0]]["constant"] for o in op_out}
        init = prepare = 0
        for name, op_in, _, opts in ops:
            if name is None:
                continue
            init += _init_count(name, op_in, opts)
            if name in PREPARE_OPS:
                prepare += _prepare_count(name, op_in, opts, tensors, resolver, num_threads, dequantized)
        out.append((init, prepare))
    return out
