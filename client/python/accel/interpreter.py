# SPDX-License-Identifier: Apache-2.0
"""accel.Interpreter: tflite_runtime.interpreter.Interpreter, served by acceld.

Tensor indices are the model's own (subgraph 0), as in tflite_runtime. Only
the model's inputs and outputs live in the interpreter's memory (acceld's
shared-memory buffer, or the in-process arena with local=True): get_tensor
and tensor() on an intermediate tensor raise ValueError.
"""

import enum
import json
import os
import threading

import numpy as np

from . import _native
from ._errors import Unsupported
from ._details import STRING, decode_strings, dtype_of, encode_strings, tensor_details
from .signature import SignatureRunner

class OpResolverType(enum.Enum):
    """tflite_runtime's op resolver choice. acceld always resolves with its
    own kernels; BUILTIN_REF and BUILTIN_WITHOUT_DEFAULT_DELEGATES, given
    without settings, select the reference kernels ({"delegate": "NONE"})
    as they do in TFLite."""
    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


def load_delegate(library, options=None):
    """tflite_runtime's delegate loader. acceld owns the accelerators:
    delegates are chosen with Interpreter(settings={"delegate": ...}) or by
    acceld's benchmarks, and plugin drivers are installed into acceld."""
    raise Unsupported(f"cannot load delegate '{library}' into the client: pass settings={{'delegate': NAME}} "
                      "to accel.Interpreter and install drivers as acceld plugins", "UNSUPPORTED")


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


class Interpreter:
    """Interpreter(model_path=None, model_content=None, num_threads=None,
    settings=None, socket=None, priority=None, deadline_ms=None, local=False,
    preference=None, prepare_deadline_ms=None)

    Loads a .tflite model into acceld (or, with local=True, into this
    process). `settings` is a TFLiteSettings dict or JSON string; without it
    acceld applies the settings its benchmarks selected (for `preference`:
    ANY, LOW_LATENCY, LOW_POWER or FORCE_CPU). `priority` is "LOW",
    "MEDIUM", "HIGH" (or 1..3); `deadline_ms` bounds how long each invoke,
    `prepare_deadline_ms` how long the compilation may wait to start. The experimental_* arguments of
    tflite_runtime are accepted; delegates are acceld's business (pass
    settings instead), so a non-empty experimental_delegates is refused.
    """

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None, num_threads=None,
                 experimental_op_resolver_type=None, experimental_preserve_all_tensors=False,
                 settings=None, socket=None, priority=None, deadline_ms=None, local=False, preference=None,
                 prepare_deadline_ms=None):
        if (model_path is None) == (model_content is None):
            raise ValueError("Can't both provide `model_path` and `model_content`"
                             if model_path is not None else "`model_path` or `model_content` must be specified.")
        if experimental_delegates:
            raise ValueError("acceld chooses and runs the delegates: pass settings={'delegate': ...} instead")
        if model_path is not None:
            model_path = os.fspath(model_path)
            if not os.path.isfile(model_path):
                raise ValueError(f"Could not open '{model_path}'.")
        else:
            model_content = bytes(model_content)
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
        if socket is not None:
            socket = os.fspath(socket)
        self._lock = threading.RLock()
        self._local = bool(local)
        if settings is None and experimental_op_resolver_type in (OpResolverType.BUILTIN_REF,
                                                                  OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES):
            settings = {"delegate": "NONE"}
        self._settings = settings_json(settings, num_threads)
        self._info = _native.model_info(path=model_path, content=model_content)
        self._native = _native.Interp(path=model_path, content=model_content, settings=self._settings,
                                      socket=socket, priority=prio, deadline_ms=deadline_ms or 0,
                                      local=self._local, preference=pref,
                                      prepare_deadline_ms=prepare_deadline_ms or 0)
        self._where = {}
        for i, t in enumerate(self._info["outputs"]):
            self._where[t] = (_OUTPUT, i)
        for i, t in enumerate(self._info["inputs"]):
            self._where[t] = (_INPUT, i)
        self._allocated = False

    # ---- details ----

    def _details(self, io, i):
        index = self._info[("inputs", "outputs")[io]][i]
        _, _, shape, _ = self._native.tensor(io, i)
        return tensor_details(self._info["tensors"][index], index, shape)

    def get_input_details(self):
        """Details of the model's inputs (name, index, shape, shape_signature,
        dtype, quantization, quantization_parameters, sparsity_parameters)."""
        with self._lock:
            return [self._details(_INPUT, i) for i in range(len(self._info["inputs"]))]

    def get_output_details(self):
        """Details of the model's outputs; shapes as of the last invoke."""
        with self._lock:
            return [self._details(_OUTPUT, i) for i in range(len(self._info["outputs"]))]

    def get_tensor_details(self):
        """Details of every tensor of subgraph 0 (tflite_runtime's list)."""
        out = []
        for index, t in enumerate(self._info["tensors"]):
            if index in self._where:
                out.append(self._details(*self._where[index]))
            else:
                out.append(tensor_details(t, index))
        return out

    def _get_ops_details(self):
        return [dict(op) for op in self._info["ops"]]

    def _locate(self, tensor_index, what):
        try:
            return self._where[int(tensor_index)]
        except (KeyError, TypeError, ValueError):
            n = len(self._info["tensors"])
            if not isinstance(tensor_index, (int, np.integer)) or not 0 <= int(tensor_index) < n:
                raise ValueError(f"Invalid tensor index {tensor_index} exceeds max tensor index {n - 1}") from None
            raise ValueError(f"Tensor {tensor_index} is neither an input nor an output of the model: acceld "
                             f"exposes only those to {what}") from None

    # ---- tensors ----

    def allocate_tensors(self):
        """Back the inputs and outputs with memory (acceld: one sealed memfd
        shared with the daemon). Raises RuntimeError while numpy views from
        tensor() are alive."""
        with self._lock:
            self._native.allocate()
            self._allocated = True

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        """Give input `input_index` (a tensor index) a new shape; with
        strict=True only the dimensions its shape_signature leaves open (-1)
        may change. Call allocate_tensors() afterwards."""
        io, i = self._locate(input_index, "resize")
        if io != _INPUT:
            raise ValueError(f"Tensor {input_index} is not an input of the model")
        shape = [int(d) for d in np.asarray(tensor_size).ravel()]
        if strict:
            sig = self._info["tensors"][int(input_index)]["shape_signature"]
            if len(sig) != len(shape) or any(s != -1 and s != d for s, d in zip(sig, shape)):
                raise ValueError(f"ResizeInputTensorStrict only allows mutating unknown dimensions identified "
                                 f"by -1 (signature {sig}, asked {shape})")
        with self._lock:
            self._native.resize(i, shape)
            self._allocated = False

    def set_tensor(self, tensor_index, value):
        """Copy `value` into input `tensor_index`. Its dtype and shape must
        match the input's (ValueError otherwise, as in tflite_runtime)."""
        io, i = self._locate(tensor_index, "set_tensor")
        if io != _INPUT:
            raise ValueError(f"Tensor {tensor_index} is an output; only inputs can be set")
        name, type_number, shape, nbytes = self._native.tensor(_INPUT, i)
        if type_number == STRING:
            value = np.asarray(value, dtype=object)
            if tuple(value.shape) != tuple(shape):
                raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {list(value.shape)} but expected "
                                 f"{list(shape)} for input {i}.")
            with self._lock:
                self._native.write_string(i, encode_strings(value))
            return
        if not isinstance(value, np.ndarray):
            value = np.asarray(value)
        want = np.dtype(dtype_of(type_number))
        if value.dtype != want:
            raise ValueError(f"Cannot set tensor: Got value of type {value.dtype.name.upper()} but expected type "
                             f"{want.name.upper()} for input {i}, name: {name} ")
        if tuple(value.shape) != tuple(shape):
            if value.ndim != len(shape):
                raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {value.ndim} but expected "
                                 f"{len(shape)} for input {i}.")
            for d, (got, exp) in enumerate(zip(value.shape, shape)):
                if got != exp:
                    raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {got} but expected {exp} for "
                                     f"dimension {d} of input {i}.")
        with self._lock:
            self._native.write(i, np.ascontiguousarray(value))

    def _view(self, io, i):
        _, type_number, shape, nbytes = self._native.tensor(io, i)
        buf = self._native.buffer(io, i)
        if type_number == STRING:
            return decode_strings(memoryview(buf), shape)
        dtype = np.dtype(dtype_of(type_number))
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        count = min(count, nbytes // dtype.itemsize)
        return np.frombuffer(buf, dtype=dtype, count=count).reshape(shape if count == int(np.prod(shape)) else -1)

    def get_tensor(self, tensor_index, subgraph_index=0):
        """A copy of input or output `tensor_index`."""
        if subgraph_index != 0:
            raise ValueError("only subgraph 0 is served")
        io, i = self._locate(tensor_index, "get_tensor")
        with self._lock:
            v = self._view(io, i)
            return v.copy() if v.dtype != object else v

    def tensor(self, tensor_index):
        """A function returning a numpy view of input or output
        `tensor_index`, without copying: the array's memory is the buffer
        acceld reads the inputs from and writes the outputs to. Hold the
        function, not the array, across allocate_tensors() and
        resize_tensor_input() (both raise RuntimeError while views are
        alive)."""
        io, i = self._locate(tensor_index, "tensor")
        def view():
            with self._lock:
                return self._view(io, i)
        return view

    def invoke(self):
        """Run the model once on the current inputs."""
        with self._lock:
            self._native.invoke()

    def reset_all_variables(self):
        """Reset the model's variables (LSTM and SVDF state).

        In-process (local=True) this resets the variable tensors to zero, as
        tflite_runtime does. Served, acceld keeps the state of a stateful
        model per interpreter (no other interpreter sees it) and this puts
        it back to what a new interpreter starts with: variable tensors,
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
        and queue_us/compute_us/total_us of the last invoke}."""
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
