"""Hugging Face's .safetensors weight files, through the safetensors library
(https://github.com/huggingface/safetensors): a file that is not one is a DataError naming it."""

from safetensors.torch import load_file, save_file

from ..checkpoint.files import write_atomically
from ..errors import DataError

_HF_METADATA = {"format": "pt"}  # transformers refuses a file without it


def load(path):
    """{name: tensor} of the file at `path`; DataError naming the file when it is not one."""
    try:
        return load_file(path)
    except Exception as e:  # noqa: BLE001 - the library's errors have no common base
        raise DataError(f"{path}: not a safetensors file ({type(e).__name__}: {e}); download or "
                        "convert it again") from None


def save(tensors, path):
    """`tensors` into `path` (a temporary file renamed over it), with the metadata transformers
    asks for."""
    tensors = {name: t.detach().cpu().contiguous() for name, t in tensors.items()}
    write_atomically(path, lambda f: save_file(tensors, f.name, metadata=_HF_METADATA))
