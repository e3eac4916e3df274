"""Tensors the user gives in files (`gewb exec --input NAME=FILE`): a numpy .npy, or an ONNX
TensorProto .pb as the onnx wheel's test data sets hold them. The size a file's header promises
is checked against the file before anything is allocated; anything unreadable is one line."""
from __future__ import annotations

import os

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import numpy_helper


class TensorFileError(ValueError):
    """A tensor file that cannot be read; the message says why (the caller names the file)."""


def load_tensor(path: str) -> np.ndarray:
    try:
        if path.lower().endswith(".pb"):
            return _load_pb(path)
        return _load_npy(path)
    except OSError as exc:
        raise TensorFileError(exc.strerror or str(exc)) from None


def _load_npy(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        try:
            fmt = np.lib.format
            version = fmt.read_magic(f)
            read_header = fmt.read_array_header_1_0 if version == (1, 0) \
                else fmt.read_array_header_2_0
            shape, _, dtype = read_header(f)
        except (ValueError, SyntaxError, TypeError, EOFError) as exc:
            raise TensorFileError(f"not a .npy file ({' '.join(str(exc).split())[:80]})") \
                from None
        if dtype.hasobject:
            raise TensorFileError("holds Python objects, not numbers")
        body = os.fstat(f.fileno()).st_size - f.tell()
        need = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if need > body:
            raise TensorFileError(f"its header promises {dtype}{list(shape)} ({need} bytes), "
                                  f"the file holds {body}")
        f.seek(0)
        try:
            return np.load(f, allow_pickle=False)
        except ValueError as exc:
            raise TensorFileError(" ".join(str(exc).split())) from None


def _load_pb(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        data = f.read()
    tensor = onnx.TensorProto()
    try:
        tensor.ParseFromString(data)
        return numpy_helper.to_array(tensor)
    except (DecodeError, ValueError, TypeError) as exc:
        reason = "its protobuf does not decode" if isinstance(exc, DecodeError) else \
            " ".join(str(exc).split())
        raise TensorFileError(f"not an ONNX TensorProto ({reason})") from None
