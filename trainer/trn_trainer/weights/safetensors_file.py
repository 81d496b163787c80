"""Hugging Face's .safetensors weight files. `load` and `save` use the safetensors package when
Python can import it; Debian 12 has no python3-safetensors and the trainer installs nothing from
PyPI, so otherwise `read` and `write` below do it, from the format's specification
(https://github.com/huggingface/safetensors, README, "Format"):

- 8 bytes: N, an unsigned little-endian 64-bit integer, the size of the header;
- N bytes: a UTF-8 JSON object starting with "{" (it may be padded with spaces), mapping each
  tensor's name to {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, plus an
  optional "__metadata__" mapping of strings to strings. The offsets count from the start of
  the byte buffer that follows, and the tensors cover it without holes;
- the byte buffer: each tensor's elements, little-endian and row-major.

Every host the trainer runs on (x86-64, arm64) is little-endian, so the bytes are the tensors'
own memory.
"""

import json
import os
import struct

import torch

from ..checkpoint.files import write_atomically
from ..errors import DataError

DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
          "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8,
          "U8": torch.uint8, "BOOL": torch.bool}
_CODES = {dtype: code for code, dtype in DTYPES.items()}
_MAX_HEADER = 100_000_000  # the safetensors library's bound: a larger N is a corrupt file
_HF_METADATA = {"format": "pt"}  # transformers refuses a file without it


def load(path):
    """{name: tensor} of the file at `path`; DataError naming the file when it is not one."""
    try:
        from safetensors.torch import load_file
    except ImportError:
        return read(path)
    try:
        return load_file(path)
    except Exception as e:  # noqa: BLE001 - the library's errors have no common base
        raise DataError(f"{path}: not a safetensors file ({type(e).__name__}: {e}); download or "
                        "convert it again") from None


def save(tensors, path):
    """`tensors` into `path` (a temporary file renamed over it)."""
    try:
        from safetensors.torch import save_file
    except ImportError:
        return write(tensors, path)
    tensors = {name: t.contiguous() for name, t in tensors.items()}
    return write_atomically(path, lambda f: save_file(tensors, f.name, metadata=_HF_METADATA))


def _bad(path, why):
    return DataError(f"{path}: not a safetensors file ({why}); download or convert it again")


def _header(path, f, size):
    raw = f.read(8)
    if len(raw) < 8:
        raise _bad(path, "shorter than the 8 bytes of its header's length")
    (length,) = struct.unpack("<Q", raw)
    if length > min(_MAX_HEADER, size - 8):
        raise _bad(path, f"a header of {length} bytes in a file of {size}")
    try:
        header = json.loads(f.read(length).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _bad(path, f"its header is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise _bad(path, "its header is not a JSON object")
    header.pop("__metadata__", None)
    return header, 8 + length


def _entries(path, header, buffer_size):
    """(name, dtype, shape, begin, end) of every tensor, in buffer order, checked to tile it."""
    entries = []
    for name, info in header.items():
        try:
            dtype = DTYPES[info["dtype"]]
            shape = [int(n) for n in info["shape"]]
            begin, end = (int(n) for n in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise _bad(path, f"tensor {name!r} has no dtype of {', '.join(DTYPES)}, shape and "
                             f"data_offsets: {info}") from None
        numel = 1
        for n in shape:
            numel *= n
        if end - begin != numel * torch.empty((), dtype=dtype).element_size():
            raise _bad(path, f"tensor {name!r} {info['dtype']} {shape} takes {end - begin} bytes")
        entries.append((name, dtype, shape, begin, end))
    entries.sort(key=lambda e: (e[3], e[4]))
    position = 0
    for name, _, _, begin, end in entries:
        if begin != position:
            raise _bad(path, f"tensor {name!r} starts at byte {begin} of the buffer, not {position}")
        position = end
    if position != buffer_size:
        raise _bad(path, f"its tensors cover {position} bytes of a {buffer_size}-byte buffer")
    return entries


def read(path):
    """{name: tensor} of a safetensors file, read by this module."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        header, start = _header(path, f, size)
        buffer = bytearray(size - start)
        f.readinto(buffer)
    tensors = {}
    for name, dtype, shape, begin, end in _entries(path, header, len(buffer)):
        if begin == end:
            tensors[name] = torch.empty(shape, dtype=dtype)
            continue
        itemsize = torch.empty((), dtype=dtype).element_size()
        tensor = torch.frombuffer(buffer, dtype=dtype, count=(end - begin) // itemsize, offset=begin)
        # A view of the buffer, copied only when a tensor is misaligned for its element type.
        tensors[name] = (tensor if begin % itemsize == 0 else tensor.clone()).reshape(shape)
    return tensors


def write(tensors, path):
    """`tensors` into a safetensors file at `path` (a temporary file renamed over it), by this
    module: in the given order, the header padded to 8 bytes as the library does."""
    header, offset, parts = {"__metadata__": _HF_METADATA}, 0, []
    for name, tensor in tensors.items():
        tensor = tensor.detach().cpu().contiguous()
        if tensor.dtype not in _CODES:
            raise ValueError(f"{name}: safetensors has no type for {tensor.dtype}")
        size = tensor.numel() * tensor.element_size()
        header[name] = {"dtype": _CODES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + size]}
        parts.append(tensor)
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)

    def write_file(f):
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for tensor in parts:
            if tensor.numel():
                f.write(tensor.reshape(-1).view(torch.uint8).numpy().data)

    write_atomically(path, write_file)
