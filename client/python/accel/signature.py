# SPDX-License-Identifier: Apache-2.0
"""SignatureRunner: a model's SignatureDef, called with named inputs."""

import numpy as np

from ._errors import Unsupported


class SignatureRunner:
    """runner(**inputs) -> {output_name: array}, as tflite_runtime's.

    Inputs whose shape differs from the current one are resized (and the
    tensors re-allocated) first. Obtain one with
    Interpreter.get_signature_runner().
    """

    def __init__(self, interpreter=None, signature_key=None):
        # tflite_runtime's form: SignatureRunner(interpreter=, signature_key=);
        # Interpreter.get_signature_runner() passes the signature itself.
        if not interpreter:
            raise ValueError("None interpreter provided.")
        if not signature_key:
            raise ValueError("None signature_key provided.")
        if isinstance(signature_key, dict):
            signature = signature_key
        else:
            sigs = {s["key"]: s for s in interpreter._info["signatures"]}
            if signature_key not in sigs:
                raise ValueError("Invalid signature_key provided.")
            signature = sigs[signature_key]
        if signature["subgraph_index"] != 0:
            raise Unsupported(f"signature '{signature['key']}' runs subgraph {signature['subgraph_index']}; "
                              "acceld serves subgraph 0", "UNSUPPORTED")
        self._interpreter = interpreter
        self._key = signature["key"]
        self._inputs = dict(signature["inputs"])
        self._outputs = dict(signature["outputs"])

    def get_input_details(self):
        by_index = {d["index"]: d for d in self._interpreter.get_input_details()}
        return {name: by_index[i] for name, i in self._inputs.items()}

    def get_output_details(self):
        by_index = {d["index"]: d for d in self._interpreter.get_output_details()}
        return {name: by_index[i] for name, i in self._outputs.items()}

    def __call__(self, **kwargs):
        it = self._interpreter
        if len(kwargs) != len(self._inputs):
            raise ValueError(f"Invalid number of inputs provided for running a SignatureDef, expected "
                             f"{len(self._inputs)} vs provided {len(kwargs)}")
        details = self.get_input_details()
        resized = False
        for name, value in kwargs.items():
            if name not in self._inputs:
                raise ValueError(f"Invalid Input name ({name}) for SignatureDef")
            value = np.asarray(value)
            if list(value.shape) != list(details[name]["shape"]):
                it.resize_tensor_input(self._inputs[name], value.shape)
                resized = True
        if resized or not it._allocated:
            it.allocate_tensors()
        for name, value in kwargs.items():
            it.set_tensor(self._inputs[name], np.asarray(value))
        it.invoke()
        return {name: it.get_tensor(i) for name, i in self._outputs.items()}
