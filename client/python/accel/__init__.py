# SPDX-License-Identifier: Apache-2.0
"""accel: TensorFlow Lite models served by acceld, from Python.

    import accel                              # instead of tflite_runtime.interpreter
    it = accel.Interpreter(model_path="m.tflite")
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    y = it.get_tensor(it.get_output_details()[0]["index"])

See docs/python.md.
"""

from ._errors import (AccelError, DeadlineMissed, DeadObject, DelegateUnavailable, DeviceUnavailable,
                      GeneralFailure, InvalidArgument, LibraryUnavailable, NotFound, OutputInsufficientSize,
                      PermissionDenied, ProtocolError, ResourceExhausted, Unsupported)
from .client import Client
from .interpreter import Delegate, Interpreter, InterpreterWithCustomOps, OpResolverType, load_delegate
from .signature import SignatureRunner
from . import _native
from . import lite

PROTOCOL_VERSION = _native.PROTOCOL_VERSION

__all__ = [
    "AccelError", "Client", "DeadObject", "DeadlineMissed", "Delegate", "DelegateUnavailable", "DeviceUnavailable",
    "GeneralFailure", "InvalidArgument", "Interpreter", "InterpreterWithCustomOps", "LibraryUnavailable",
    "NotFound", "OpResolverType", "OutputInsufficientSize", "PermissionDenied", "ProtocolError",
    "ResourceExhausted", "SignatureRunner", "Unsupported", "load_delegate", "lite",
]
