"""Checkpoint files in one directory (docs/checkpoints.md#files): each rank's shard of step S
(`ckpt_S.pt` for rank 0, `ckpt_S.shard<R>.pt` for rank R) and the manifest `ckpt_S.json` that
lists every shard with its size and SHA-256. Each file is written to a temporary file, fsynced
and renamed; the manifest is committed last, so a checkpoint counts only once all of it is on
disk; a file without its committed manifest is never read, whatever it holds.
Which directories (tiers) a checkpoint goes to and comes from: tiers.py and restore.py."""

import hashlib
import io
import json
import os
import re
import shutil

import torch

from ..errors import CheckpointError
from ..outside_files import json_loads, plain_name, read_regular_file
from . import torch_archive

_MANIFEST = re.compile(r"^ckpt_(\d+)\.json$")
# Every file of a step, temporary ones (a writer that was killed) included.
_ANY_FILE = re.compile(r"^\.?ckpt_(\d+)(?:\.shard\d+)?\.(?:pt|json)(?:\.tmp-\d+)?$")
MANIFEST_FORMATS = (1, 2)  # 1: one shard (trn_trainer before sharding); 2: a shard per rank
MAX_MANIFEST_BYTES = 16 << 20  # a manifest lists one small entry per rank
REQUIRED = ("step", "model", "optimizer", "consumed_samples", "model_config", "optimizer_name")


def shard_name(step, rank):
    return f"ckpt_{step}.pt" if rank == 0 else f"ckpt_{step}.shard{rank}.pt"


def manifest_name(step):
    return f"ckpt_{step}.json"


def step_of_manifest(name):
    """S of a manifest's file name ckpt_S.json, else None."""
    m = _MANIFEST.match(name)
    return int(m.group(1)) if m else None


def step_of_file(name):
    """S of any checkpoint file name of step S (shards, manifest, temporary files), else None."""
    m = _ANY_FILE.match(name)
    return int(m.group(1)) if m else None


def _steps(directory, pattern):
    if not directory or not os.path.isdir(directory):
        return {}
    return {int(m.group(1)): os.path.join(directory, name)
            for name in os.listdir(directory) for m in [pattern.match(name)] if m}


def committed_steps(directory):
    """Steps with a manifest in `directory`, newest first."""
    return sorted(_steps(directory, _MANIFEST), reverse=True)


def uncommitted_steps(directory):
    """Steps that have files in `directory` but no manifest (a save cut off before its commit,
    or the whole-state files of a trn_trainer from before manifests), newest first."""
    if not directory or not os.path.isdir(directory):
        return []
    names = os.listdir(directory)  # one listing for both: a save may commit in between
    committed = {step_of_manifest(name) for name in names}
    return sorted({step_of_file(name) for name in names} - committed - {None}, reverse=True)


def list_checkpoints(directory):
    """[(step, path of rank 0's shard)] of the committed checkpoints, newest first."""
    return [(s, os.path.join(directory, shard_name(s, 0))) for s in committed_steps(directory)]


def read_manifest(directory, step):
    """The manifest of `step` in `directory`, None when there is none; ValueError when it does
    not describe the step's shards."""
    path = os.path.join(directory, manifest_name(step))
    try:
        data = read_regular_file(path, MAX_MANIFEST_BYTES, "manifest")
    except FileNotFoundError:
        return None
    try:
        manifest = json_loads(data)
    except ValueError as e:
        raise ValueError(f"manifest {path} is not valid JSON ({e})") from None
    shards = manifest.get("shards") if isinstance(manifest, dict) else None
    if (not isinstance(shards, list) or not shards or manifest.get("format") not in MANIFEST_FORMATS
            or manifest.get("step") != step
            or any(not isinstance(e, dict) or {"file", "bytes", "sha256"} - e.keys()
                   or not _count(e["bytes"]) or not _count(e.get("rank", 0)) for e in shards)):
        raise ValueError(f"manifest {path} does not describe the shards of step {step}")
    for entry in shards:  # a manifest names files of its own folder only
        plain_name(entry["file"], f"manifest {path}")
    for rank, entry in enumerate(shards):
        entry.setdefault("rank", rank)  # format 1: one shard, rank 0's
    return manifest


def _count(value):
    """Whether `value` is a whole number >= 0 (a size, a rank), as JSON gives one."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_shard(entry, size, sha256, what):
    """ValueError naming `what` unless size and checksum are the manifest entry's."""
    if size != entry["bytes"] or sha256 != entry["sha256"]:
        raise ValueError(f"{what} has {size} bytes and another checksum than the manifest's "
                         f"({entry['bytes']} bytes): truncated or corrupt")


def read_shard_bytes(directory, entry):
    """The bytes of manifest entry `entry`'s shard in `directory`, checked against the entry;
    ValueError when missing, truncated or corrupt."""
    path = os.path.join(directory, plain_name(entry["file"], "a manifest"))
    try:
        # The manifest says the size: nothing larger is read (a link to /dev/zero, a FIFO).
        data = read_regular_file(path, entry["bytes"], "its shard")
    except FileNotFoundError:
        raise ValueError(f"its shard {entry['file']} is missing") from None
    check_shard(entry, len(data), hashlib.sha256(data).hexdigest(), f"its shard {path}")
    return data


def read_shard(directory, entry):
    """The loaded shard of manifest entry `entry` from `directory` (read_shard_bytes)."""
    return torch_archive.load(io.BytesIO(read_shard_bytes(directory, entry)), f"shard {entry['file']}")


def write_bytes(directory, name, data):
    """`data` as file `name` of `directory`, atomically (a shard received from a peer)."""
    os.makedirs(directory, exist_ok=True)
    write_atomically(os.path.join(directory, name), lambda f: f.write(data))
    fsync_directory(directory)


def check_loaded(state):
    if not isinstance(state, dict) or any(k not in state for k in REQUIRED):
        raise ValueError("not a trn_trainer checkpoint (keys missing)")
    return state


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
    if optimizer_name is not None and state["optimizer_name"] != optimizer_name:
        raise CheckpointError(
            f"checkpoint {path} was written with --optimizer {state['optimizer_name']}, this run "
            f"uses --optimizer {optimizer_name}; use the same optimizer or another --output folder")


class _HashingFile(io.RawIOBase):
    """A file being written that also counts and hashes what goes through it. A failed write
    (ENOSPC, EIO) is kept, not raised: torch 1.13's torch.save aborts the whole process when
    its file object raises (a C++ exception in a destructor); write_shard raises it after."""

    def __init__(self, f):
        self._f, self.sha256, self.bytes = f, hashlib.sha256(), 0
        self.error = None

    def writable(self):
        return True

    def write(self, data):
        if self.error is None:
            try:
                n = self._f.write(data)
            except OSError as e:
                self.error = e
            else:
                self.sha256.update(memoryview(data)[:n])
                self.bytes += n
                return n
        return len(memoryview(data))  # dropped: the file is removed once torch.save returns


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


def fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def write_shard(directory, step, rank, share):
    """Rank `rank`'s shard of step `step` into `directory`; its manifest entry."""
    final = os.path.join(directory, shard_name(step, rank))

    def write(f):
        hashing = _HashingFile(f)
        buffered = io.BufferedWriter(hashing, buffer_size=1 << 20)
        torch.save(share, buffered)
        buffered.flush()
        if hashing.error is not None:
            raise hashing.error
        return hashing

    os.makedirs(directory, exist_ok=True)
    hashing = write_atomically(final, write)
    fsync_directory(directory)
    return {"file": os.path.basename(final), "rank": rank, "bytes": hashing.bytes,
            "sha256": hashing.sha256.hexdigest()}


def copy_shard(source_dir, directory, entry):
    """The shard `entry` (written to `source_dir`) copied into `directory`, atomically."""
    def copy(f):
        with open(os.path.join(source_dir, entry["file"]), "rb") as src:
            shutil.copyfileobj(src, f, 1 << 20)
        if f.tell() != entry["bytes"]:
            raise OSError(f"copied {f.tell()} of the {entry['bytes']} bytes of {entry['file']}")

    os.makedirs(directory, exist_ok=True)
    write_atomically(os.path.join(directory, entry["file"]), copy)
    fsync_directory(directory)


def make_manifest(step, entries):
    return {"format": 2, "step": step, "world_size": len(entries),
            "shards": sorted(entries, key=lambda e: e["rank"])}


def commit_manifest(directory, manifest):
    """ckpt_<step>.json, written last: from now on the checkpoint counts in `directory`."""
    write_atomically(os.path.join(directory, manifest_name(manifest["step"])),
                     lambda f: f.write((json.dumps(manifest, indent=1) + "\n").encode()))
    fsync_directory(directory)


def prune(directory, step, keep):
    """After step `step` is committed: committed steps later than it belong to an abandoned
    trajectory (--no-resume) and go; of the rest the newest `keep` stay (0: all); temporary
    files of earlier steps (a writer killed midway) go. A manifest goes before its shards, so a
    checkpoint half removed is never taken for a whole one. A later step without a manifest
    stays: it may be the next save, which ranks already write while this one commits."""
    by_step = {}
    for name in os.listdir(directory):
        m = _ANY_FILE.match(name)
        if m:
            by_step.setdefault(int(m.group(1)), []).append(name)
    existing = sorted(by_step, reverse=True)
    committed = [s for s in existing if s <= step and manifest_name(s) in by_step[s]]
    doomed = [s for s in existing if s > step and manifest_name(s) in by_step[s]]
    if keep > 0 and len(committed) > keep:
        oldest_kept = committed[keep - 1]
        # Uncommitted steps (a save killed before its manifest, an earlier trainer's files)
        # age out with the committed ones around them.
        doomed += [s for s in existing if s < oldest_kept]
    for old in doomed:
        for name in sorted(by_step[old], key=lambda n: not n.endswith(".json")):
            _remove(os.path.join(directory, name))
    for old in (s for s in existing if s < step and s not in doomed):
        for name in by_step[old]:
            if ".tmp-" in name:
                _remove(os.path.join(directory, name))


def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass  # another node's prune of the same directory got there first
