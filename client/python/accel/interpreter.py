# SPDX-License-Identifier: Apache-2.0
"""accel.Interpreter: tflite_runtime.interpreter.Interpreter, served by acceld.

Tensor indices are the model's own (subgraph 0), as in tflite_runtime,
and the temporaries TFLite's kernels would add are numbered after them
(_temporaries.py), as TFLite numbers them.
Served, only the model's inputs and outputs live in memory this process
shares with acceld; constants are read from the model. In-process
(local=True, and every interpreter with experimental_preserve_all_tensors)
every tensor is addressable, as in tflite_runtime.

Where TFLite versions differ, this follows the newest interpreter.py
(TensorFlow 2.18+ / ai_edge_litert): see docs/python.md.
"""

import enum
import json
import mmap
import os
import threading

import numpy as np

from . import _native, _temporaries
from ._errors import AccelError, DelegateUnavailable, InvalidArgument, LibraryUnavailable, Unsupported
from ._details import STRING, decode_strings, dtype_of, encode_strings, tensor_details
from .signature import SignatureRunner


@enum.unique
class OpResolverType(enum.Enum):
    """tflite_runtime's op resolver choice. acceld always resolves with its
    own kernels; BUILTIN_REF and BUILTIN_WITHOUT_DEFAULT_DELEGATES, given
    without settings, select the reference kernels ({"delegate": "NONE"})
    as they do in TFLite."""
    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


def _delegate_message(library):
    return (f"Failed to load delegate from {library}\n"
            f"accel does not load TFLite delegate libraries into the app: acceld chooses the accelerator "
            f"for each model from its benchmarks. To ask for one, pass "
            f"settings={{'delegate': 'XNNPACK'}} (or 'GPU', 'NNAPI', 'EDGETPU', ... as acceld's drivers "
            f"provide; see `accelctl caps`) to accel.Interpreter; plugin drivers are installed into acceld.")


class Delegate:
    """tflite_runtime's Delegate(library, options=None). acceld runs the
    accelerators, so no library is loaded into the app: constructing one
    raises DelegateUnavailable (a ValueError and an OSError), as
    tflite_runtime does on a machine where the library cannot be loaded."""

    def __init__(self, library, options=None):
        self._library = None
        raise DelegateUnavailable(_delegate_message(library))

    def _get_native_delegate_pointer(self):
        return None


def load_delegate(library, options=None):
    """tflite_runtime's delegate loader: raises ValueError ("Failed to load
    delegate from LIBRARY ..."), so the usual `except ValueError:` falls
    back to the CPU. acceld owns the accelerators: choose one with
    Interpreter(settings={"delegate": ...}) or let acceld's benchmarks do it."""
    return Delegate(library, options)


_PRIORITIES = {None: 0, "DEFAULT": 0, "LOW": 1, "MEDIUM": 2, "HIGH": 3}

_PREFERENCES = ["ANY", "LOW_LATENCY", "LOW_POWER", "FORCE_CPU"]

_INPUT, _OUTPUT = 0, 1


def settings_json(settings, num_threads=None):
    """The TFLiteSettings JSON to send: `settings` (dict or JSON string, as
    accelctl takes) with `num_threads` filled in where it has none; None
    when neither is given (acceld's selected best settings apply)."""
    if settings is None and num_threads is None:
        return None
    if settings is None:
        # tflite_runtime's default for num_threads: its XNNPACK delegate.
        settings = {"delegate": "XNNPACK"}
    if isinstance(settings, (bytes, str)):
        try:
            settings = json.loads(settings)
        except ValueError as e:
            raise ValueError(f"settings are not JSON: {e}") from None
    if not isinstance(settings, dict):
        raise ValueError("settings must be a dict or a JSON object string")
    settings = dict(settings)
    if num_threads is not None:
        if not isinstance(num_threads, int) or (num_threads < 1 and num_threads != -1):
            raise ValueError("num_threads should >= 1 or just -1 (let the runtime choose)")
        for key in ("cpu_settings", "xnnpack_settings"):
            sub = dict(settings.get(key) or {})
            sub.setdefault("num_threads", num_threads)
            settings[key] = sub
    return json.dumps(settings)


_RESOLVER_REF = (OpResolverType.BUILTIN_REF, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)

_SAFETY_MESSAGE = """There is at least 1 reference to internal data
      in the interpreter in the form of a numpy array or slice. Be sure to
      only hold the function returned from tensor() if you are using raw
      data access."""


def _check_model_content(content):
    """tflite_runtime's text for a buffer that is no TFLite model."""
    ident = bytes(content[4:8])
    if ident != b"TFL3":
        raise ValueError(f"Model provided has model identifier '{ident.decode('latin-1')}', should be 'TFL3'\n")


class Interpreter:
    """Interpreter(model_path=None, model_content=None,
    experimental_delegates=None, num_threads=None,
    experimental_op_resolver_type=OpResolverType.AUTO,
    experimental_preserve_all_tensors=False,
    experimental_disable_delegate_clustering=False,
    experimental_default_delegate_latest_features=False, settings=None,
    socket=None, priority=None, deadline_ms=None, local=False,
    preference=None, prepare_deadline_ms=None, lane=None)

    Loads a .tflite model into acceld (or, with local=True, into this
    process). The first eight arguments are tf.lite.Interpreter's, in its
    order and with its checks; acceld's follow. `settings` is a
    TFLiteSettings dict or JSON string; without it acceld applies the
    settings its benchmarks selected (for `preference`: ANY, LOW_LATENCY,
    LOW_POWER or FORCE_CPU), and local=True runs XNNPACK with the reference
    kernels for what it cannot take, as tflite_runtime does. `priority` is
    "LOW", "MEDIUM", "HIGH" (or 1..3); `deadline_ms` bounds how long each
    invoke, `prepare_deadline_ms` how long the compilation may wait to start.
    `lane` (default None: as libaccel, on unless ACCEL_LANE=0 is in the
    environment) lets invoke() go over a lane, a futex in the shared tensor
    buffer, instead of a socket round trip when acceld offers one; False
    keeps this interpreter on the socket (execution_info()['lane'] says
    which it uses).
    Delegates are acceld's business: load_delegate() raises ValueError, and
    experimental_delegates must be empty.
    """

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None, num_threads=None,
                 experimental_op_resolver_type=OpResolverType.AUTO, experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False,
                 experimental_default_delegate_latest_features=False,
                 settings=None, socket=None, priority=None, deadline_ms=None, local=False, preference=None,
                 prepare_deadline_ms=None, lane=None):
        self._native = None
        if not hasattr(self, "_custom_op_registerers"):
            self._custom_op_registerers = []
        # tf.lite.Interpreter's checks, in its order and with its texts.
        resolver = experimental_op_resolver_type
        if experimental_preserve_all_tensors and resolver in (OpResolverType.AUTO, OpResolverType.BUILTIN):
            resolver = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        if not isinstance(resolver, OpResolverType):
            raise ValueError(f"Unrecognized passed in op resolver type: {experimental_op_resolver_type}")
        if num_threads is not None:
            if not isinstance(num_threads, int):
                raise ValueError("type of num_threads should be int")
            if num_threads < 1:
                raise ValueError("num_threads should >= 1")
        if model_path and not model_content:
            model_path = os.fspath(model_path)
            if not os.path.isfile(model_path):
                raise ValueError(f"Could not open '{model_path}'.")
            model_content = None
        elif model_content and not model_path:
            model_content = bytes(model_content)
            _check_model_content(model_content)
            model_path = None
        elif not model_content and not model_path:
            raise ValueError("`model_path` or `model_content` must be specified.")
        else:
            raise ValueError("Can't both provide `model_path` and `model_content`")
        if self._custom_op_registerers:
            first = self._custom_op_registerers[0]
            name = first if isinstance(first, str) else getattr(first, "__name__", repr(first))
            raise LibraryUnavailable(f"Looking up symbol '{name}' failed: accel does not load custom op "
                                     f"registerers into the app; acceld runs TFLite's builtin ops and its "
                                     f"drivers (install custom kernels into acceld as a plugin driver)")
        if experimental_delegates:
            names = ", ".join(type(d).__name__ for d in experimental_delegates)
            raise ValueError(f"experimental_delegates ({names}): accel does not run TFLite delegates in the app; "
                             "acceld chooses the accelerator (ask for one with settings={'delegate': ...})")
        self._delegates = []
        self._preserve_all_tensors = bool(experimental_preserve_all_tensors)
        self._model_path, self._model_content = model_path, model_content
        # acceld's own arguments.
        if isinstance(priority, str):
            priority = priority.upper()
        if priority not in _PRIORITIES and priority not in (0, 1, 2, 3):
            raise ValueError(f"priority must be LOW, MEDIUM or HIGH, not {priority!r}")
        prio = _PRIORITIES.get(priority, priority)
        if deadline_ms is not None and (not isinstance(deadline_ms, int) or deadline_ms < 0):
            raise ValueError("deadline_ms must be a non-negative int")
        if prepare_deadline_ms is not None and (not isinstance(prepare_deadline_ms, int) or prepare_deadline_ms < 0):
            raise ValueError("prepare_deadline_ms must be a non-negative int")
        if preference is None:
            pref = -1
        elif isinstance(preference, str) and preference.upper() in _PREFERENCES:
            pref = _PREFERENCES.index(preference.upper())
        elif preference in (0, 1, 2, 3):
            pref = preference
        else:
            raise ValueError(f"preference must be one of {_PREFERENCES}, not {preference!r}")
        if lane is not None and not isinstance(lane, bool):
            raise ValueError(f"lane must be True, False or None, not {lane!r}")
        if socket is not None:
            socket = os.fspath(socket)
        self._lock = threading.RLock()
        # Intermediate tensors of a served model live in acceld's memory,
        # in an instance other interpreters share, and are reused within an
        # invoke: an interpreter that preserves them runs in this process.
        self._local = bool(local) or self._preserve_all_tensors
        fallback = None
        if settings is None and resolver in _RESOLVER_REF:
            settings = {"delegate": "NONE"}
        elif settings is None and self._local:
            # tflite_runtime's default: XNNPACK, the reference kernels for
            # the rest; the whole model on them if XNNPACK cannot start.
            settings = {"delegate": "XNNPACK"}
            fallback = settings_json({"delegate": "NONE"}, num_threads)
        self._settings = settings_json(settings, num_threads)
        try:
            self._info = _native.model_info(path=model_path, content=model_content)
        except AccelError as e:
            raise InvalidArgument(f"The model is not a valid Flatbuffer {'file' if model_path else 'buffer'}: "
                                  f"{e.message}", e.status, e.errno) from None
        self._count_temporaries(resolver, num_threads)
        args = dict(path=model_path, content=model_content, socket=socket, priority=prio,
                    deadline_ms=deadline_ms or 0, local=self._local, preference=pref,
                    prepare_deadline_ms=prepare_deadline_ms or 0,
                    preserve_all_tensors=self._preserve_all_tensors, lane=lane is not False)
        try:
            self._native = _native.Interp(settings=self._settings, **args)
        except (AccelError, RuntimeError):
            if fallback is None:
                raise
            self._settings = fallback
            self._native = _native.Interp(settings=self._settings, **args)
        self._where = {}
        for i, t in enumerate(self._info["outputs"]):
            self._where[t] = (_OUTPUT, i)
        for i, t in enumerate(self._info["inputs"]):
            self._where[t] = (_INPUT, i)
        self._allocated = False
        self._signature_defs = self.get_signature_list()

    # ---- TFLite's tensor numbering ----

    def _count_temporaries(self, resolver, num_threads):
        """TFLite numbers its kernels' temporary tensors after the model's
        (see _temporaries): how many per subgraph, at build and after the
        first allocate_tensors()."""
        kind = {OpResolverType.BUILTIN_REF: "ref",
                OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES: "builtin"}.get(resolver, "default")
        # tflite_runtime hands its interpreter num_threads or 1.
        threads = num_threads or 1
        if self._model_content is not None:
            self._temporaries = _temporaries.count(self._model_content, self._info["graph_tensors"], kind, threads)
        else:
            # Read in place: only the operators' few bytes are touched.
            with open(self._model_path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                self._temporaries = _temporaries.count(m, self._info["graph_tensors"], kind, threads)
        self._prepared = False

    def _num_tensors(self, subgraph_index):
        """tflite_runtime's NumTensors(subgraph_index): the model's tensors
        and the temporaries TFLite's kernels have added so far."""
        init, prepare = self._temporaries[subgraph_index]
        return len(self._info["graph_tensors"][subgraph_index]) + init + (prepare if self._prepared else 0)

    def _check_index(self, tensor_index, subgraph_index):
        """tensor_index as an int; ValueError with tflite_runtime's bounds
        text beyond NumTensors, and True as second value for a temporary
        (an index TFLite gives a kernel's scratch tensor)."""
        n = self._num_tensors(subgraph_index)
        if not isinstance(tensor_index, (int, np.integer)) or not 0 <= int(tensor_index) < n:
            raise ValueError(f"Invalid tensor index {tensor_index} exceeds max tensor index {n}")
        t = int(tensor_index)
        return t, t >= len(self._info["graph_tensors"][subgraph_index])

    # ---- memory safety ----

    def _safe_to_run(self):
        """True when no numpy array from tensor() points into the
        interpreter's memory."""
        return self._native.exports() == 0

    def _ensure_safe(self):
        """RuntimeError (tflite_runtime's text) while numpy views from
        tensor() are alive: invoke(), allocate_tensors() and
        resize_tensor_input() would change the memory under them."""
        if not self._safe_to_run():
            raise RuntimeError(_SAFETY_MESSAGE)

    # ---- details ----

    def num_subgraphs(self):
        """The number of subgraphs in the model."""
        return self._info["subgraphs"]

    def _check_subgraph(self, subgraph_index):
        n = self._info["subgraphs"]
        if not 0 <= subgraph_index < n:
            raise ValueError(f"Invalid subgraph index {subgraph_index} exceeds max subgraph index {n}")

    def _get_tensor_details(self, tensor_index, subgraph_index):
        """tflite_runtime's details dict of one tensor of a subgraph; the
        current shape for subgraph 0's inputs and outputs."""
        tensor_index = int(tensor_index)
        subgraph_index = int(subgraph_index)
        self._check_subgraph(subgraph_index)
        tensors = self._info["graph_tensors"][subgraph_index]
        tensor_index, temporary = self._check_index(tensor_index, subgraph_index)
        if temporary:
            # tflite_runtime's size query on a tensor nothing gave dims.
            raise ValueError("Tensor with no shape found.")
        shape = None
        if subgraph_index == 0 and tensor_index in self._where:
            with self._lock:
                _, _, shape, _ = self._native.tensor(*self._where[tensor_index])
        elif subgraph_index == 0 and self._local:
            with self._lock:
                _, _, shape, _, _ = self._native.tensor_at(tensor_index)
        return tensor_details(tensors[tensor_index], tensor_index, shape)

    def get_input_details(self):
        """Details of the model's inputs (name, index, shape, shape_signature,
        dtype, quantization, quantization_parameters, sparsity_parameters)."""
        return [self._get_tensor_details(i, subgraph_index=0) for i in self._info["inputs"]]

    def get_output_details(self):
        """Details of the model's outputs; shapes as of the last invoke."""
        return [self._get_tensor_details(i, subgraph_index=0) for i in self._info["outputs"]]

    def get_tensor_details(self, subgraph_index=0):
        """Details of every tensor of subgraph `subgraph_index` that has
        them: as tflite_runtime, the indices of NumTensors() whose details
        raise ValueError (kernels' temporaries) are left out."""
        n = self._info["subgraphs"]
        if subgraph_index < 0 or subgraph_index >= n:
            raise ValueError(f"subgraph_index is out of range: {subgraph_index} for the model, which has {n} "
                             f"subgraphs.")
        details = []
        for i in range(self._num_tensors(subgraph_index)):
            try:
                details.append(self._get_tensor_details(i, subgraph_index))
            except ValueError:
                pass
        return details

    def _get_op_details(self, op_index):
        """{'index', 'op_name', 'inputs', 'outputs' (int32 arrays of tensor
        indices), 'operand_types', 'result_types' (their dtypes)} of node
        `op_index` of subgraph 0."""
        ops = self._info["ops"]
        op_index = int(op_index)
        if not 0 <= op_index < len(ops):
            raise ValueError(f"Invalid node index {op_index} exceeds max node index {len(ops)}")
        op = ops[op_index]
        tensors = self._info["tensors"]
        return {
            "index": op_index,
            "op_name": op["op_name"],
            "inputs": np.array(op["inputs"], np.int32),
            "outputs": np.array(op["outputs"], np.int32),
            "operand_types": [dtype_of(tensors[t]["type"]) for t in op["inputs"] if t != -1],
            "result_types": [dtype_of(tensors[t]["type"]) for t in op["outputs"] if t != -1],
        }

    def _get_ops_details(self):
        """_get_op_details() of every node of subgraph 0."""
        return [self._get_op_details(i) for i in range(len(self._info["ops"]))]

    def _locate(self, tensor_index, what):
        """(io, position) of an input or output tensor; ValueError for any
        other index (resize_tensor_input takes inputs only)."""
        t = self._check_tensor_index(tensor_index)
        if t not in self._where:
            raise ValueError(f"Tensor {t} is neither an input nor an output of the model")
        return self._where[t]

    def _check_tensor_index(self, tensor_index):
        """tensor_index (subgraph 0) as an int, or tflite_runtime's
        ValueError; a ValueError too for a kernel's temporary."""
        t, temporary = self._check_index(tensor_index, 0)
        if temporary:
            raise ValueError(f"Tensor {t} is a temporary tensor of a TFLite kernel (TFLite numbers them after "
                             f"the model's {len(self._info['tensors'])} tensors): accel's kernels keep their "
                             f"scratch memory elsewhere, so it has no type, shape or data")
        return t

    def _served_intermediate(self, t):
        info = self._info["tensors"][t]
        name, kind = info["name"], "a variable" if info["is_variable"] else "an intermediate"
        return ValueError(f"Tensor {t} ('{name}') is {kind} tensor: a served model keeps those in "
                          f"acceld's memory. Pass experimental_preserve_all_tensors=True (the interpreter then "
                          f"runs in this process and keeps every tensor) or local=True to read or set it")

    def _tensor_info(self, t):
        """(name, type number, current shape, bytes, storage) of tensor t,
        storage being 'input' / 'output' (the interpreter's I/O memory),
        'const' (the model's read-only bytes), 'data' (in-process memory),
        'none' (no bytes) or 'served' (an intermediate inside acceld)."""
        if t in self._where:
            io, i = self._where[t]
            name, type_number, shape, nbytes = self._native.tensor(io, i)
            return name, type_number, shape, nbytes, ("input" if io == _INPUT else "output")
        if self._local:
            return self._native.tensor_at(t)
        info = self._info["tensors"][t]
        return (info["name"], info["type"], tuple(info["shape"]), 0,
                "const" if info["constant"] else "served")

    def _array(self, buf, type_number, shape, nbytes):
        """A numpy array over buffer `buf` holding a tensor (strings: an
        object array of bytes). A sparse constant comes back as its
        compressed values, flat, as tflite_runtime returns it."""
        if type_number == STRING:
            with memoryview(buf) as m:
                return decode_strings(m, shape)
        dtype = np.dtype(dtype_of(type_number))
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        count = min(count, nbytes // dtype.itemsize)
        return np.frombuffer(buf, dtype=dtype, count=count).reshape(shape if count == int(np.prod(shape)) else -1)

    def _read(self, t):
        """A view of tensor t (a copy of the model's bytes for a served
        constant). Call with the lock held."""
        if t in self._where:
            return self._view(*self._where[t])
        name, type_number, shape, nbytes, storage = self._tensor_info(t)
        if storage == "served":
            raise self._served_intermediate(t)
        if storage == "const" and not self._local:
            data = _native.model_constant(path=self._model_path, content=self._model_content, tensor=t)
            return self._array(data, type_number, shape, len(data))
        if storage == "none" and not self._allocated:
            raise ValueError("Tensor data is null. Run allocate_tensors() first")
        return self._array(self._native.buffer_at(t), type_number, shape, nbytes)

    # ---- tensors ----

    def allocate_tensors(self):
        """Back the inputs and outputs with memory (acceld: one sealed memfd
        shared with the daemon). Raises RuntimeError while numpy views from
        tensor() are alive."""
        with self._lock:  # get_tensor's transient views live under the lock
            self._ensure_safe()
            self._native.allocate()
            self._allocated = True
            # TFLite's kernels' Prepare has run: their temporaries exist.
            self._prepared = True

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        """Give input `input_index` (a tensor index) a new shape; with
        strict=True only the dimensions its shape_signature leaves open (-1)
        may change. Call allocate_tensors() afterwards."""
        io, i = self._locate(input_index, "resize")
        if io != _INPUT:
            raise ValueError(f"Tensor {input_index} is not an input of the model")
        shape = [int(d) for d in np.array(tensor_size, dtype=np.int32).ravel()]
        if strict:
            sig = self._info["tensors"][int(input_index)]["shape_signature"]
            if len(sig) != len(shape) or any(s != -1 and s != d for s, d in zip(sig, shape)):
                raise ValueError(f"ResizeInputTensorStrict only allows mutating unknown dimensions identified "
                                 f"by -1 (signature {sig}, asked {shape})")
        with self._lock:
            self._ensure_safe()
            self._native.resize(i, shape)
            self._allocated = False

    def set_tensor(self, tensor_index, value):
        """Copy `value` into tensor `tensor_index`, with tflite_runtime's
        checks and texts (dtype, rank, each dimension, byte size). Any tensor
        tflite_runtime lets be set can be: inputs and outputs always;
        intermediates and variables in-process (local=True or
        experimental_preserve_all_tensors=True). Constants are the model's
        read-only bytes and raise ValueError."""
        t = self._check_tensor_index(tensor_index)
        name, type_number, shape, nbytes, storage = self._tensor_info(t)
        if not isinstance(value, np.ndarray):
            value = np.array(value)
        if type_number == STRING:
            want_name = "STRING"
        else:
            want = np.dtype(dtype_of(type_number))
            want_name = want.name.upper()
        got_name = "STRING" if value.dtype.kind in "SUO" else value.dtype.name.upper()
        if got_name != want_name:
            raise ValueError(f"Cannot set tensor: Got value of type {got_name} but expected type {want_name} for "
                             f"input {t}, name: {name} ")
        if tuple(value.shape) != tuple(shape):
            if value.ndim != len(shape):
                raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {value.ndim} but expected "
                                 f"{len(shape)} for input {t}.")
            for d, (got, exp) in enumerate(zip(value.shape, shape)):
                if got != exp:
                    raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {got} but expected {exp} for "
                                     f"dimension {d} of input {t}.")
        if storage == "served":
            raise self._served_intermediate(t)
        if storage == "const":
            raise ValueError(f"Cannot set tensor: tensor {t} ('{name}') is a constant of the model: its bytes "
                             f"are the model's, read-only")
        if type_number != STRING:
            if storage == "none" or not self._allocated:
                raise ValueError("Cannot set tensor: Tensor is unallocated. Try calling allocate_tensors() first")
            value = np.ascontiguousarray(value)
            if value.nbytes != nbytes:
                raise ValueError(f"numpy array had {value.nbytes} bytes but expected {nbytes} bytes.")
        with self._lock:
            if storage == "input":
                i = self._where[t][1]
                if type_number == STRING:
                    self._native.write_string(i, encode_strings(value))
                else:
                    self._native.write(i, value)
            elif self._local:
                self._native.write_at(t, encode_strings(value) if type_number == STRING else value)
            elif type_number == STRING:
                raise Unsupported(f"Cannot set tensor: {t} ('{name}') is a string output of a served model; "
                                  f"acceld writes it at invoke")
            else:
                # A served output: the bytes this process shares with acceld.
                dst = np.frombuffer(self._native.buffer(_OUTPUT, self._where[t][1]), np.uint8, count=nbytes)
                dst[:] = np.frombuffer(value.tobytes(), np.uint8)
                del dst

    def _view(self, io, i):
        _, type_number, shape, nbytes = self._native.tensor(io, i)
        return self._array(self._native.buffer(io, i), type_number, shape, nbytes)

    def get_tensor(self, tensor_index, subgraph_index=0):
        """A copy of tensor `tensor_index`: an input, an output or a
        constant; in-process (local=True, or experimental_preserve_all_tensors
        =True, which keeps every intermediate's value of the last invoke)
        any tensor, as in tflite_runtime."""
        if subgraph_index != 0:
            self._check_subgraph(int(subgraph_index))
            raise ValueError(f"accel addresses the tensors of subgraph 0 only, not {subgraph_index}")
        t = self._check_tensor_index(tensor_index)
        with self._lock:
            v = self._read(t)
            return v.copy()

    def tensor(self, tensor_index):
        """A function returning a numpy view of tensor `tensor_index`,
        without copying: for an input or output the buffer acceld reads the
        inputs from and writes the outputs to; in-process any tensor's
        memory (constants read-only); served constants are read-only arrays
        of the model's bytes. Hold the function, not the array, across
        invoke(), allocate_tensors() and resize_tensor_input() (they raise
        RuntimeError while views are alive, as in tflite_runtime)."""
        t = self._check_tensor_index(tensor_index)
        def view():
            with self._lock:
                return self._read(t)
        return view

    def invoke(self):
        """Run the model once on the current inputs. RuntimeError while
        numpy views from tensor() are alive, as in tflite_runtime."""
        with self._lock:  # get_tensor's transient views live under the lock
            self._ensure_safe()
            self._native.invoke()

    def reset_all_variables(self):
        """Reset the model's variables (LSTM and SVDF state).

        In-process (local=True) this resets the variable tensors to zero, as
        tflite_runtime does. Served, acceld keeps the state of a stateful
        model per interpreter (no other interpreter sees it), and placed in
        this process by acceld the interpreter holds its own; either way
        this puts it back to what a new interpreter starts with: variable tensors,
        resource variables and CALL_ONCE initialisation alike. A stateless
        model has nothing to reset."""
        with self._lock:
            self._native.reset()

    # ---- signatures ----

    def get_signature_list(self):
        """{signature_key: {'inputs': [names], 'outputs': [names]}}."""
        return {s["key"]: {"inputs": [n for n, _ in s["inputs"]], "outputs": [n for n, _ in s["outputs"]]}
                for s in self._info["signatures"]}

    def _get_full_signature_list(self):
        return {s["key"]: {"inputs": dict(s["inputs"]), "outputs": dict(s["outputs"])}
                for s in self._info["signatures"]}

    def get_signature_runner(self, signature_key=None):
        """A SignatureRunner for `signature_key` (may be omitted when the
        model has exactly one SignatureDef)."""
        sigs = {s["key"]: s for s in self._info["signatures"]}
        if signature_key is None:
            if len(sigs) != 1:
                raise ValueError("SignatureDef signature_key is None and model has {0} Signatures. None is only "
                                 "allowed when the model has 1 SignatureDef".format(len(sigs)))
            signature_key = next(iter(sigs))
        if signature_key not in sigs:
            raise ValueError(f"SignatureDef signature_key '{signature_key}' not found; the model has "
                             f"{sorted(sigs)}")
        return SignatureRunner(self, sigs[signature_key])

    # ---- acceld extras ----

    def execution_info(self):
        """How acceld runs the model: {'local', 'shared' (an already compiled
        instance was reused), 'zero_copy' (the last invoke ran on the shared
        buffer directly), 'compile_us', 'partitions': [{'driver', 'nodes'}],
        'lane' (invokes go over a lane, not the socket), and
        queue_us/compute_us/total_us of the last invoke}."""
        return self._native.info()

    def evaluate_diff(self, runs=0, seed=0):
        """acceld's inference diff on the instance this interpreter uses:
        `runs` (0: 50) random inputs from `seed`, each through that instance
        and the reference kernels, compared output by output. Stored by
        acceld; returns the stored result as Client.evaluations() does
        (accelctl eval diff --json): id, model_sha256, settings_key, stage,
        source, accuracy (the largest mean output error), samples,
        wallclock_us, uid and metrics (the seed's ProcessMetrics)."""
        from .client import _evaluation
        return _evaluation(self._native.evaluate_diff(int(runs), int(seed)))


class InterpreterWithCustomOps(Interpreter):
    """tflite_runtime's InterpreterWithCustomOps(custom_op_registerers=None,
    **kwargs). With no registerers it is an Interpreter; registerers (C
    functions that add kernels to TFLite's resolver) cannot be loaded into
    acceld's runtime and raise LibraryUnavailable (a ValueError, as
    tflite_runtime's failed symbol lookup, and an Unsupported)."""

    def __init__(self, custom_op_registerers=None, **kwargs):
        self._custom_op_registerers = custom_op_registerers or []
        super().__init__(**kwargs)
