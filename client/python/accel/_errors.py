# SPDX-License-Identifier: Apache-2.0
"""accel's exceptions: one class per acceld Status, all AccelError.

Each carries the daemon's status name (``status``), its message
(``message``) and the positive errno libaccel mapped it to (``errno``).
Classes whose meaning matches a builtin also derive from it, so code written
for tflite_runtime that catches ValueError keeps working.
"""

from . import _native


class AccelError(RuntimeError):
    """A failure reported by acceld, libaccel or the in-process runtime."""

    status = "GENERAL_FAILURE"

    def __init__(self, message="", status=None, errno=0):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        self.errno = errno

    def __str__(self):
        if self.message.startswith(self.status):
            return self.message
        return f"{self.status}: {self.message}"


class DeviceUnavailable(AccelError):
    """acceld (or the requested accelerator) cannot be reached."""
    status = "DEVICE_UNAVAILABLE"


class GeneralFailure(AccelError):
    status = "GENERAL_FAILURE"


class OutputInsufficientSize(AccelError):
    status = "OUTPUT_INSUFFICIENT_SIZE"


class InvalidArgument(AccelError, ValueError):
    status = "INVALID_ARGUMENT"


class DeadlineMissed(AccelError, TimeoutError):
    """The deadline passed; ``transient`` says whether a retry may succeed."""
    status = "MISSED_DEADLINE_TRANSIENT"

    @property
    def transient(self):
        return self.status.endswith("TRANSIENT")


class ResourceExhausted(AccelError):
    """Too much queued or too little memory; ``transient`` as above."""
    status = "RESOURCE_EXHAUSTED_TRANSIENT"

    @property
    def transient(self):
        return self.status.endswith("TRANSIENT")


class PermissionDenied(AccelError):
    status = "PERMISSION_DENIED"


class NotFound(AccelError, LookupError):
    status = "NOT_FOUND"


class ProtocolError(AccelError):
    status = "PROTOCOL_ERROR"


class Unsupported(AccelError, NotImplementedError):
    status = "UNSUPPORTED"


class LibraryUnavailable(Unsupported, ValueError, OSError):
    """Native code for TFLite (a delegate library, a custom op registerer)
    cannot be loaded into the app: acceld runs the accelerators and kernels
    itself. A ValueError, which tflite_runtime raises for a delegate or
    registerer it cannot load (and which its fallback idiom catches), and an
    OSError, which ctypes raises for a library that is not there."""

    def __init__(self, message):
        super().__init__(message, "UNSUPPORTED")

    def __str__(self):
        return self.message


class DelegateUnavailable(LibraryUnavailable):
    """load_delegate() / Delegate(): see LibraryUnavailable."""


class DeadObject(AccelError):
    """The connection to acceld is gone (the daemon stopped or restarted)."""
    status = "DEAD_OBJECT"


BY_STATUS = {
    "NONE": AccelError,
    "DEVICE_UNAVAILABLE": DeviceUnavailable,
    "GENERAL_FAILURE": GeneralFailure,
    "OUTPUT_INSUFFICIENT_SIZE": OutputInsufficientSize,
    "INVALID_ARGUMENT": InvalidArgument,
    "MISSED_DEADLINE_TRANSIENT": DeadlineMissed,
    "MISSED_DEADLINE_PERSISTENT": DeadlineMissed,
    "RESOURCE_EXHAUSTED_TRANSIENT": ResourceExhausted,
    "RESOURCE_EXHAUSTED_PERSISTENT": ResourceExhausted,
    "PERMISSION_DENIED": PermissionDenied,
    "NOT_FOUND": NotFound,
    "PROTOCOL_ERROR": ProtocolError,
    "UNSUPPORTED": Unsupported,
    "DEAD_OBJECT": DeadObject,
}

_native.set_error_classes(BY_STATUS)
