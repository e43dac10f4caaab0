# SPDX-License-Identifier: Apache-2.0
"""accel.tf: a `tf`-shaped namespace whose `lite` is accel.lite, so
`import accel.tf as tf` replaces `import tensorflow as tf` in code that
only runs TFLite models (tf.lite.Interpreter, tf.lite.experimental.*)."""

from . import lite

__all__ = ["lite"]
