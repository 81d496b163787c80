"""Fuzzes the checkpoint readers (trn_trainer/checkpoint/files.py, outside_files.py) with
outside bytes: a manifest ckpt_S.json, a shard checked against a manifest entry and loaded, and
the file names a manifest gives.

Contracts, from the callers: read_manifest returns None or a manifest whose every entry names a
plain file of a whole number of bytes and a rank, else raises ValueError (restore.read_step_manifest
and peers.inventory catch ValueError only); read_shard_bytes raises ValueError (restore.py, peers.py);
read_shard may raise any Exception (restore.load_newest skips the checkpoint with a warning), never
a BaseException, a crash or a hang; plain_name returns a plain name or raises UnreadableFile.

Usage: PYTHONPATH=trainer python fuzz_checkpoint_manifest.py [libFuzzer flags] [corpus...]"""

import hashlib
import os
import sys

import atheris
import torch  # noqa: F401 - imported before the instrumented ones: only trn_trainer is instrumented

import harness_common

with atheris.instrument_imports(include=["trn_trainer"]):
    from trn_trainer.checkpoint import files
    from trn_trainer.outside_files import UnreadableFile, plain_name, read_regular_file

WORK = harness_common.scratch()
STEP = 7
FIFO = os.path.join(WORK, "fifo")
os.mkfifo(FIFO)
# A shard holds pickles; random bytes must never name a global outside torch (os.system):
# the fuzzer runs the unpickler on whatever it makes.
_PICKLE_GLOBALS = ("torch", "collections", "_codecs", "numpy")


def _only_torch_globals(event, args):
    if event == "pickle.find_class" and not str(args[0]).split(".")[0] in _PICKLE_GLOBALS:
        raise RuntimeError(f"fuzz sandbox: the pickle names {args[0]}.{args[1]}")


sys.addaudithook(_only_torch_globals)


def check_manifest(data):
    harness_common.write(os.path.join(WORK, files.manifest_name(STEP)), data)
    try:
        manifest = files.read_manifest(WORK, STEP)
    except ValueError:
        return
    assert manifest is not None and manifest["step"] == STEP
    for entry in manifest["shards"]:
        assert plain_name(entry["file"], "test") == entry["file"]
        assert type(entry["bytes"]) is int and entry["bytes"] >= 0, entry
        assert type(entry["rank"]) is int and entry["rank"] >= 0, entry  # restore.load_step keys by it


def check_shard(data, exact):
    """`exact`: the entry states the shard's true size, else one byte less (a truncated read)."""
    harness_common.write(os.path.join(WORK, "ckpt_7.pt"), data)
    entry = {"file": "ckpt_7.pt", "rank": 0,
             "bytes": len(data) if exact else max(0, len(data) - 1),
             "sha256": hashlib.sha256(data).hexdigest()}
    try:
        assert files.read_shard_bytes(WORK, entry) == data
    except ValueError:
        assert not exact
        return
    try:
        files.read_shard(WORK, entry)
    except Exception:  # noqa: BLE001 - load_newest skips such a checkpoint with a warning
        pass


def whole(data):
    """Whether the limit given read_regular_file is the file's size (else one byte less)."""
    return not data or data[-1] & 1


def check_names(fdp):
    name = fdp.ConsumeUnicodeNoSurrogates(64)
    try:
        assert plain_name(name, "test") == name
    except UnreadableFile:
        return
    assert "/" not in name and name not in (".", "..") and "\0" not in name
    data = fdp.ConsumeBytes(fdp.remaining_bytes())
    limit = len(data) + whole(data) - 1
    path = harness_common.write(os.path.join(WORK, "file"), data)
    try:
        assert read_regular_file(path, limit) == data
    except UnreadableFile:
        assert len(data) > limit
    try:
        read_regular_file(FIFO, 1 << 20)
        raise AssertionError("a FIFO was read")
    except UnreadableFile:
        pass


def TestOneInput(data):
    if not data:
        return
    with harness_common.NoLeak():
        mode, rest = data[0] % 4, data[1:]
        if mode == 0:
            check_manifest(rest)
        elif mode in (1, 3):
            check_shard(rest, exact=mode == 1)
        else:
            check_names(atheris.FuzzedDataProvider(rest))


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
