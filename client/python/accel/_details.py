# SPDX-License-Identifier: Apache-2.0
"""Tensor detail dicts in tflite_runtime's shape."""

import numpy as np

# TFLite TensorType number -> numpy type, as tflite_runtime reports them.
DTYPES = {
    0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64,
    5: np.bytes_, 6: np.bool_, 7: np.int16, 8: np.complex64, 9: np.int8,
    10: np.float64, 11: np.complex128, 12: np.uint64, 15: np.uint32,
    16: np.uint16,
}

STRING = 5


def dtype_of(type_number):
    try:
        return DTYPES[type_number]
    except KeyError:
        raise ValueError(f"tensor type {type_number} has no numpy equivalent") from None


def _sparsity(s):
    if not s:
        return {}
    dims = []
    for d in s["dim_metadata"]:
        if d["format"] == 0:
            dims.append({"format": 0, "dense_size": d["dense_size"]})
        else:
            dims.append({"format": 1,
                         "array_segments": np.array(d["array_segments"], np.int32),
                         "array_indices": np.array(d["array_indices"], np.int32)})
    return {"traversal_order": np.array(s["traversal_order"], np.int32),
            "block_map": np.array(s["block_map"], np.int32),
            "dim_metadata": dims}


def tensor_details(t, index, shape=None):
    """One details dict: `t` is a tensor of _native.model_info(), `shape`
    the current shape when the interpreter knows one."""
    scales = np.array(t["scales"], np.float32)
    zero_points = np.array(t["zero_points"], np.int32)
    quant = (float(scales[0]), int(zero_points[0])) if len(scales) else (0.0, 0)
    return {
        "name": t["name"],
        "index": index,
        "shape": np.array(t["shape"] if shape is None else shape, np.int32),
        "shape_signature": np.array(t["shape_signature"], np.int32),
        "dtype": dtype_of(t["type"]),
        "quantization": quant,
        "quantization_parameters": {
            "scales": scales,
            "zero_points": zero_points,
            "quantized_dimension": t["quantized_dimension"],
        },
        "sparsity_parameters": _sparsity(t["sparsity"]),
    }


def _string_items(values):
    """The bytes of each item, as tflite_runtime takes them: an S array's
    items with their full fixed width (NULs included), a U array's or a
    str's as UTF-8, bytes objects as they are."""
    arr = np.asarray(values)
    if arr.dtype.kind == "S":
        raw, width = np.ascontiguousarray(arr).tobytes(), arr.dtype.itemsize
        return [raw[k * width:(k + 1) * width] for k in range(arr.size)]
    return [v.encode() if isinstance(v, str) else bytes(v) for v in np.asarray(values, dtype=object).ravel()]


def encode_strings(values):
    """TFLite's serialized string layout: int32 count N, int32 offsets[N+1]
    from the buffer start, then the bytes."""
    items = _string_items(values)
    header = 4 * (len(items) + 2)
    offsets, pos = [], header
    for b in items:
        offsets.append(pos)
        pos += len(b)
    offsets.append(pos)
    return np.array([len(items)] + offsets, "<i4").tobytes() + b"".join(items)


def decode_strings(buf, shape):
    """A string tensor as tflite_runtime's get_tensor returns it: an object
    array of the tensor's shape whose items are bytes, exactly as stored
    (NULs included). Its details' dtype is np.bytes_."""
    raw = bytes(buf)
    if len(raw) < 4:
        return np.array([], dtype=object).reshape(shape)
    n = int.from_bytes(raw[:4], "little", signed=True)
    offsets = np.frombuffer(raw, "<i4", count=n + 1, offset=4)
    out = np.empty(n, dtype=object)
    for i in range(n):
        out[i] = raw[offsets[i]:offsets[i + 1]]
    return out.reshape(shape) if int(np.prod(shape)) == n else out
