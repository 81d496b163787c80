#!/usr/bin/env python3
"""The trainer's checkpoint engine against torch.distributed.checkpoint (DCP), side by side in one
run, on the same model and AdamW state (BERT tiny and base), the same disk and the same device.

Per save: the stall (what the training step pays: the engine's snapshot into host buffers, or
DCP async_save's staging into host memory, both before the writer thread takes over; the wait for
the previous save's write, if any, is left out of both), the write (from the save's start until
it is on disk and committed) and the restore (the newest checkpoint read back into the model and
optimizer). Each engine saves after every one of --saves training
steps; the medians are reported, with the median step for scale. One process (DCP plans and
writes the same way with one rank as with many; the engine's shards are per rank too).

Goals (issue 28, docs/checkpoints.md): the stall at most 1% of a step for both, so that DCP can
take over the engine's format without costing the step more.
Usage: scripts/python bench/trainer/checkpoint_engines.py [--saves N] [--device cpu|cuda]
       [--models tiny,base]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.staging import DefaultStager, StagingOptions

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "trainer"))
sys.path.insert(0, os.path.join(ROOT, "tests", "trainer"))

from trainer_testlib import bert_inputs  # noqa: E402
from trn_trainer.checkpoint.group import SingleProcess  # noqa: E402
from trn_trainer.checkpoint.restore import load_newest  # noqa: E402
from trn_trainer.checkpoint.tiers import Tiers, TierWriter  # noqa: E402
from trn_trainer.checkpoint.writer import CheckpointWriter  # noqa: E402
from trn_trainer.models.bert import BertForPreTraining  # noqa: E402
from trn_trainer.models.bert_config import model_config  # noqa: E402

VOCAB = 30522


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Training:
    """A BERT model with AdamW on `device`, stepped on random batches of 8 x 128 tokens."""

    def __init__(self, size, device):
        torch.manual_seed(0)
        self.device = device
        self.cfg = model_config(size, VOCAB, 0.1)
        self.model = BertForPreTraining(self.cfg).to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.inputs = [t.to(device) for t in bert_inputs(self.cfg, batch=8, seq=128, preds=20)]

    def step(self):
        start = time.perf_counter()
        mlm, nsp = self.model(*self.inputs)
        (mlm.float().logsumexp(-1).mean() + nsp.float().logsumexp(-1).mean()).backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=False)
        synchronize(self.device)
        return time.perf_counter() - start

    def state(self, step=0):
        """What the trainer's checkpoint holds (bert_state.capture), with the live tensors."""
        return {"step": step, "consumed_samples": 8 * step, "model": dict(self.model.state_dict()),
                "optimizer": self.optimizer.state_dict(), "model_config": self.cfg.to_dict(),
                "optimizer_name": "adamw"}

    def parameters(self):
        return sum(p.numel() for p in self.model.parameters())


def engine(training, work, saves):
    """(stalls, writes, restore seconds, steps) of the trainer's engine, async, into `work`."""
    tiers = Tiers(work, keep=2)
    writer = CheckpointWriter(TierWriter(tiers, SingleProcess(), 0, lambda m: None).persist,
                              lambda m: None, SingleProcess(), "async")
    steps = []
    for step in range(1, saves + 1):
        steps.append(training.step())
        writer.wait()  # as for DCP below: the previous write's end is not this save's stall
        writer.submit(step, lambda: training.state(step), must=True)  # never skipped
    writer.wait()
    start = time.perf_counter()
    state, step, _ = load_newest(tiers, print)
    training.model.load_state_dict(state["model"])
    training.optimizer.load_state_dict(state["optimizer"])
    synchronize(training.device)
    assert step == saves
    return writer.stalls, writer.writes, time.perf_counter() - start, steps


def distributed_checkpoint(training, work, saves, stager=None):
    """(stalls, writes, restore seconds, steps) of DCP async_save into `work`, one folder a step;
    `stager`: DCP's staging into host memory (default: a new copy each save)."""
    stalls, writes, steps, pending = [], [], [], None
    for step in range(1, saves + 1):
        steps.append(training.step())
        if pending is not None:  # as the engine: one save in flight at a time
            pending[0].result()
            writes.append(time.perf_counter() - pending[1])
        start = time.perf_counter()
        future = dcp.async_save(training.state(step), checkpoint_id=os.path.join(work, f"step_{step}"),
                                async_stager=stager)
        stalls.append(time.perf_counter() - start)
        pending = (future, start)
    pending[0].result()
    writes.append(time.perf_counter() - pending[1])
    start = time.perf_counter()
    state = training.state()  # loaded in place into the model's and optimizer's tensors
    dcp.load(state, checkpoint_id=os.path.join(work, f"step_{saves}"))
    training.model.load_state_dict(state["model"])
    training.optimizer.load_state_dict(state["optimizer"])
    synchronize(training.device)
    return stalls, writes, time.perf_counter() - start, steps


def reusing_stager(training, work, saves):
    """DCP async_save with DefaultStager keeping its host buffers from save to save (pinned when
    the model is on a GPU), staged in the step as the engine's snapshot is."""
    pinned = training.device.type == "cuda"
    stager = DefaultStager(StagingOptions(use_pinned_memory=pinned, use_shared_memory=False,
                                          use_async_staging=False, use_non_blocking_copy=pinned))
    try:
        return distributed_checkpoint(training, work, saves, stager)
    finally:
        stager.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=6)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--models", default="tiny,base")
    parser.add_argument("--work", default=None, help="where the checkpoints go (default: a temporary folder)")
    args = parser.parse_args()
    # DCP without a process group saves and loads as one process, as meant here; it says so each time.
    warnings.filterwarnings("ignore", message="torch.distributed is disabled")
    device = torch.device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {os.cpu_count()} cores"
    print(f"torch {torch.__version__}, {name}, {args.saves} saves per engine")
    print("| model | parameters | engine | step median | stall per save | stall / step | write | restore |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        for size in args.models.split(","):
            training = Training(size, device)
            training.step()  # warm-up: the optimizer's state exists from here on
            for label, run in (("trn engine (async)", engine), ("DCP async_save", distributed_checkpoint),
                               ("DCP async_save, kept host buffers", reusing_stager)):
                folder = os.path.join(work, f"{size}-{len(label)}")
                stalls, writes, restore, steps = run(training, folder, args.saves)
                shutil.rmtree(folder)
                step, stall = statistics.median(steps), statistics.median(stalls)
                print(f"| {size} | {training.parameters() / 1e6:.1f}M | {label} | {1000 * step:.0f} ms | "
                      f"{1000 * stall:.1f} ms | {100 * stall / step:.2f}% | "
                      f"{1000 * statistics.median(writes):.0f} ms | {1000 * restore:.0f} ms |")


if __name__ == "__main__":
    main()
