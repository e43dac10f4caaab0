# SPDX-License-Identifier: Apache-2.0
"""accel.lite: the part of the `tf.lite` namespace that runs models, backed
by acceld, so code written for tf.lite.Interpreter changes one import line:

    import accel.tf as tf          # was: import tensorflow as tf
    it = tf.lite.Interpreter(model_path="m.tflite")

or `from accel import lite` and `lite.Interpreter(...)`. The converter and
the rest of TensorFlow are not here (they do not run models).
"""

import types

from .interpreter import (Delegate, Interpreter, InterpreterWithCustomOps, OpResolverType, SignatureRunner,
                          load_delegate)

# tf.lite.experimental's interpreter names.
experimental = types.SimpleNamespace(load_delegate=load_delegate, OpResolverType=OpResolverType)

__all__ = ["Delegate", "Interpreter", "InterpreterWithCustomOps", "OpResolverType", "SignatureRunner",
           "experimental", "load_delegate"]
