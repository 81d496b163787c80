"""Loading a torch.save file that came from outside the process (a checkpoint shard, a peer's copy,
an --init-from file) without letting its bytes claim the machine's memory.

torch.save writes a zip archive (PyTorch >= 1.6) whose `data.pkl` member is a pickle of the state
with the tensors' bytes in other members. CPython's unpickler grows its memo to the index a PUT
opcode names: four bytes of a damaged or crafted pickle (LONG_BINPUT 0x2274616d) allocate
gigabytes before any error (found by tests/fuzz/trainer/fuzz_checkpoint_manifest.py). A memo
index can never usefully exceed the number of opcodes before it, so the pickle's opcodes are
walked first (pickletools, no objects built) and such a file is refused as a ValueError, as is a
file that is not a zip archive at all (the pre-1.6 format, or not a torch file)."""

import io
import pickletools
import zipfile

import torch

_MEMO_PUTS = ("PUT", "BINPUT", "LONG_BINPUT")
MAX_PICKLE_BYTES = 256 << 20  # the structure only: the tensors' bytes are other members


def check_archive(source, what):
    """ValueError naming `what` unless `source` (a path or a seekable binary file, left at its
    start) is a torch.save zip archive whose pickle names no memo slot beyond its own length."""
    try:
        with zipfile.ZipFile(source) as archive:
            pickles = [info for info in archive.infolist()
                       if info.filename == "data.pkl" or info.filename.endswith("/data.pkl")]
            if len(pickles) != 1:
                raise ValueError(f"{what} is a zip archive without one data.pkl: not written by torch.save")
            if pickles[0].file_size > MAX_PICKLE_BYTES:
                raise ValueError(f"{what}: its data.pkl has {pickles[0].file_size} bytes, more than "
                                 f"the {MAX_PICKLE_BYTES} a state's structure takes")
            data = archive.read(pickles[0])
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as e:
        raise ValueError(f"{what} is not a torch.save zip archive ({e}): a file saved by PyTorch "
                         "before 1.6 is loaded and saved again with torch.save first") from None
    finally:
        if hasattr(source, "seek"):
            source.seek(0)
    check_pickle_memo(data, what)


def check_pickle_memo(data, what):
    """ValueError naming `what` when pickle `data` is malformed or puts into a memo slot beyond
    its length (the unpickler would allocate the memo up to that slot)."""
    try:
        puts = [int(argument) for opcode, argument, _ in pickletools.genops(io.BytesIO(data))
                if opcode.name in _MEMO_PUTS]
    except (ValueError, TypeError) as e:
        raise ValueError(f"{what}: its pickle is malformed ({e})") from None
    beyond = [slot for slot in puts if slot > len(data)]
    if beyond:
        raise ValueError(f"{what}: its pickle puts into memo slot {beyond[0]}, beyond its "
                         f"{len(data)} bytes: damaged")


def load(source, what):
    """The object torch.save wrote to `source` (a path or a seekable binary file), on the CPU,
    after check_archive."""
    check_archive(source, what)
    # Our own files hold Python numbers that torch 1.13's weights_only loader rejects; torch >= 2.6
    # defaults to weights_only=True, so say it explicitly.
    try:
        return torch.load(source, map_location="cpu", weights_only=False)
    except TypeError:  # torch without the weights_only argument
        return torch.load(source, map_location="cpu")
