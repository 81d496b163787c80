"""ckpt_<step>.pt and its manifest ckpt_<step>.json: the state is written to a temporary file,
fsynced and renamed; the manifest, naming the file with its size and SHA-256, is committed last
the same way, so a checkpoint counts only once all of it is on disk. Resume takes the newest
checkpoint whose manifest and shard check out and skips (with a warning) any that does not;
the newest N are kept. Directories of an earlier trn_trainer (no manifest anywhere) load as
they did: the newest .pt that loads."""

import hashlib
import io
import json
import os
import re

import torch

from .errors import CheckpointError

_STATE = re.compile(r"^ckpt_(\d+)\.pt$")
_MANIFEST = re.compile(r"^ckpt_(\d+)\.json$")
MANIFEST_FORMAT = 1
REQUIRED = ("step", "model", "optimizer", "consumed_samples", "model_config", "optimizer_name")


def _steps(directory, pattern):
    if not os.path.isdir(directory):
        return {}
    return {int(m.group(1)): os.path.join(directory, name)
            for name in os.listdir(directory) for m in [pattern.match(name)] if m}


def list_checkpoints(directory):
    """[(step, path of the .pt)] of the committed checkpoints (a manifest), newest first; in a
    directory without any manifest (an earlier trn_trainer's), every .pt."""
    manifests = _steps(directory, _MANIFEST)
    if not manifests:
        return sorted(_steps(directory, _STATE).items(), reverse=True)
    return sorted(((s, os.path.join(directory, f"ckpt_{s}.pt")) for s in manifests), reverse=True)


def _torch_load(data):
    # Our own files (they hold Python numbers that torch 1.13's weights_only loader rejects);
    # torch >= 2.6 defaults to weights_only=True, so say it explicitly.
    try:
        return torch.load(data, map_location="cpu", weights_only=False)
    except TypeError:  # torch without the weights_only argument
        return torch.load(data, map_location="cpu")


def _read_verified(step, path):
    """The state of checkpoint `step`, its shard checked against the manifest (when it has one)."""
    manifest_path = os.path.join(os.path.dirname(path), f"ckpt_{step}.json")
    if not os.path.exists(manifest_path):
        return _torch_load(path)  # an earlier trn_trainer's checkpoint
    with open(manifest_path) as f:
        manifest = json.load(f)
    shards = manifest.get("shards") or []
    if manifest.get("format") != MANIFEST_FORMAT or manifest.get("step") != step or len(shards) != 1:
        raise ValueError(f"manifest {manifest_path} does not describe one shard of step {step}")
    shard = shards[0]
    shard_path = os.path.join(os.path.dirname(path), shard["file"])
    if not os.path.exists(shard_path):
        raise ValueError(f"its shard {shard['file']} is missing")
    with open(shard_path, "rb") as f:
        data = f.read()
    check_shard(shard, len(data), hashlib.sha256(data).hexdigest(), f"its shard {shard['file']}")
    return _torch_load(io.BytesIO(data))


def check_shard(shard, size, sha256, what):
    """ValueError naming `what` unless size and checksum are the manifest entry's."""
    if size != shard["bytes"] or sha256 != shard["sha256"]:
        raise ValueError(f"{what} has {size} bytes and another checksum than the manifest's "
                         f"({shard['bytes']} bytes): truncated or corrupt")


def load_newest(directory, warn):
    """(state, path) of the newest loadable checkpoint; (None, None) when there is none.
    Checkpoints present but none loadable is an error: starting over would delete them."""
    candidates = list_checkpoints(directory)
    for step, path in candidates:
        try:
            state = _read_verified(step, path)
            if not isinstance(state, dict) or any(k not in state for k in REQUIRED):
                raise ValueError("not a trn_trainer checkpoint (keys missing)")
        except Exception as e:  # truncated zip, checksum, pickle errors: fall back to an older one
            warn(f"warning: skipping checkpoint {path}: cannot be loaded ({type(e).__name__}: "
                 f"{str(e).splitlines()[0] if str(e) else ''}); trying an older one")
            continue
        return state, path
    if candidates:
        raise CheckpointError(
            f"none of the {len(candidates)} checkpoint(s) in {directory} can be loaded (see the "
            "warnings above); move them away, or pass --no-resume to start over")
    return None, None


def check_compatible(state, path, model_config, optimizer_name):
    saved = state["model_config"]
    wanted = model_config.architecture()
    saved_arch = {k: saved.get(k) for k in wanted}
    if saved_arch != wanted:
        diff = ", ".join(f"{k}: checkpoint {saved_arch[k]} vs run {wanted[k]}"
                         for k in wanted if saved_arch[k] != wanted[k])
        raise CheckpointError(
            f"checkpoint {path} belongs to another model configuration ({diff}); use the matching "
            "--model/--vocab-size, or another --output folder to start a new run")
    if state["optimizer_name"] != optimizer_name:
        raise CheckpointError(
            f"checkpoint {path} was written with --optimizer {state['optimizer_name']}, this run "
            f"uses --optimizer {optimizer_name}; use the same optimizer or another --output folder")


class _HashingFile(io.RawIOBase):
    """A file being written that also counts and hashes what goes through it."""

    def __init__(self, f):
        self._f, self.sha256, self.bytes = f, hashlib.sha256(), 0

    def writable(self):
        return True

    def write(self, data):
        n = self._f.write(data)
        self.sha256.update(memoryview(data)[:n])
        self.bytes += n
        return n


def write_atomically(final, write):
    """write(f) into a temporary file next to `final`, fsynced, then renamed over it."""
    tmp = os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w+b") as f:  # readable too: a download checks what it wrote
            result = write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return result


def commit_manifest(directory, manifest):
    """ckpt_<step>.json, written last: from now on the checkpoint counts."""
    write_atomically(os.path.join(directory, f"ckpt_{manifest['step']}.json"),
                     lambda f: f.write((json.dumps(manifest, indent=1) + "\n").encode()))


def _fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def save(directory, step, state, keep):
    final = os.path.join(directory, f"ckpt_{step}.pt")

    def write_state(f):
        hashing = _HashingFile(f)
        buffered = io.BufferedWriter(hashing, buffer_size=1 << 20)
        torch.save(state, buffered)
        buffered.flush()
        return hashing

    shard = write_atomically(final, write_state)
    _fsync_directory(directory)
    manifest = {"format": MANIFEST_FORMAT, "step": step,
                "shards": [{"file": os.path.basename(final), "bytes": shard.bytes,
                            "sha256": shard.sha256.hexdigest()}]}
    commit_manifest(directory, manifest)
    _fsync_directory(directory)
    # Later steps than this one belong to an abandoned trajectory (--no-resume): a resume must
    # never pick them up. Of the rest, keep the newest `keep`. A manifest goes before its shard,
    # so a checkpoint half removed is never taken for a whole one.
    existing = sorted(set(_steps(directory, _MANIFEST)) | set(_steps(directory, _STATE)), reverse=True)
    stale = [s for s in existing if s > step]
    current = [s for s in existing if s <= step]
    for old in stale + (current[keep:] if keep > 0 else []):
        for name in (f"ckpt_{old}.json", f"ckpt_{old}.pt"):
            try:
                os.remove(os.path.join(directory, name))
            except FileNotFoundError:
                pass
    return final
