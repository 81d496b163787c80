"""ckpt_<step>.pt: written by one process to a temporary file then renamed, last N kept;
resume takes the newest one that loads and skips (with a warning) any that does not."""

import os
import re

import torch

from .errors import CheckpointError

_NAME = re.compile(r"^ckpt_(\d+)\.pt$")
REQUIRED = ("step", "model", "optimizer", "consumed_samples", "model_config", "optimizer_name")


def list_checkpoints(directory):
    """[(step, path)], newest first."""
    if not os.path.isdir(directory):
        return []
    found = []
    for name in os.listdir(directory):
        m = _NAME.match(name)
        if m:
            found.append((int(m.group(1)), os.path.join(directory, name)))
    return sorted(found, reverse=True)


def _torch_load(path):
    # Our own files (they hold Python numbers that torch 1.13's weights_only loader rejects);
    # torch >= 2.6 defaults to weights_only=True, so say it explicitly.
    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except TypeError:  # torch without the weights_only argument
        return torch.load(path, map_location="cpu")


def load_newest(directory, warn):
    """(state, path) of the newest loadable checkpoint; (None, None) when there is none.
    Checkpoints present but none loadable is an error: starting over would delete them."""
    candidates = list_checkpoints(directory)
    for step, path in candidates:
        try:
            state = _torch_load(path)
            if not isinstance(state, dict) or any(k not in state for k in REQUIRED):
                raise ValueError("not a trn_trainer checkpoint (keys missing)")
        except Exception as e:  # truncated zip, pickle errors, ...: fall back to an older one
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


def save(directory, step, state, keep):
    final = os.path.join(directory, f"ckpt_{step}.pt")
    tmp = os.path.join(directory, f".ckpt_{step}.pt.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    try:
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
    # Later steps than this one belong to an abandoned trajectory (--no-resume): a resume must
    # never pick them up. Of the rest, keep the newest `keep`.
    existing = list_checkpoints(directory)
    stale = [p for s, p in existing if s > step]
    current = [p for s, p in existing if s <= step]
    for old in stale + (current[keep:] if keep > 0 else []):
        try:
            os.remove(old)
        except FileNotFoundError:
            pass
    return final
