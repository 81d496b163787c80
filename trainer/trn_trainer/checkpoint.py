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
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except TypeError:  # torch without the weights_only argument
        return torch.load(path, map_location="cpu")


def load_newest(directory, warn):
    for step, path in list_checkpoints(directory):
        try:
            state = _torch_load(path)
            if not isinstance(state, dict) or any(k not in state for k in REQUIRED):
                raise ValueError("not a trn_trainer checkpoint (keys missing)")
        except Exception as e:  # truncated zip, pickle errors, ...: fall back to an older one
            warn(f"warning: skipping checkpoint {path}: cannot be loaded ({type(e).__name__}: "
                 f"{str(e).splitlines()[0] if str(e) else ''}); trying an older one")
            continue
        return state, path
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
    if keep > 0:
        for _, old in list_checkpoints(directory)[keep:]:
            try:
                os.remove(old)
            except FileNotFoundError:
                pass
    return final
