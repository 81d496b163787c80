#!/usr/bin/env python3
"""Trainer overhead on CPU: time per optimizer step of the trn_trainer loop against a minimal
plain-PyTorch loop on the same model, the same initial weights and the same batches.

The machine is shared (2 cores, other jobs), so the two are measured in pairs: step i of the
trainer and step i of the plain loop run back to back (order alternating), and the table
compares medians over all steady-state steps, plus the median of the per-pair ratios. The two
loops must also compute the same losses (checked), so the difference is loop machinery only:
batch assembly from the HDF5 shards, metrics.jsonl, progress bookkeeping.

Targets: trainer / plain <= 1.10; data loading < 5% of the trainer's step.
Usage: scripts/python bench/trainer/step_overhead.py [--steps N] [--check]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "trainer"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from trn_trainer.cli import build_parser, main as cli_main  # noqa: E402
from trn_trainer.models.bert_config import model_config  # noqa: E402
from trn_trainer.data.sampling import StepLoader  # noqa: E402
from trn_trainer.models.bert import BertForPreTraining  # noqa: E402
from trn_trainer.training.optim import WarmupDecay, parameter_groups  # noqa: E402
from trn_trainer.data.bert_shards import open_shards  # noqa: E402
from trn_trainer.data.wordpiece import vocab_size_of  # noqa: E402

FORTUNES = "/usr/share/games/fortunes"
SEED = 12345


class PlainLoop:
    """Batches prepared beforehand; per step: forward/backward per micro-batch, clip, AdamW with
    the same warm-up/decay, zero_grad, loss.item(). The same math as the trainer."""

    def __init__(self, data, steps, micro, global_batch, warmup):
        shards = open_shards(data)
        self.vocab = vocab_size_of(os.path.join(data, "vocab.txt"))
        loader = StepLoader(shards, SEED, micro, 1, 0, global_batch // micro, self.vocab)
        self.batches = [loader.step(s * global_batch) for s in range(steps)]
        loader.close()
        self.global_batch = global_batch
        torch.manual_seed(SEED)
        self.model = BertForPreTraining(model_config("tiny", self.vocab, 0.1))
        self.opt = torch.optim.AdamW(parameter_groups(self.model.named_parameters(), 0.01), lr=4e-4,
                                     eps=1e-6, weight_decay=0.01)
        self.schedule = WarmupDecay(4e-4, warmup, steps)
        self.step = 0
        self.losses = []

    def one_step(self):
        micro_batches, tokens = self.batches[self.step]
        self.step += 1
        self.model.train()
        total = 0.0
        for mb in micro_batches:
            mlm_logits, nsp_logits = self.model(mb["input_ids"], mb["segment_ids"], mb["input_mask"],
                                                mb["masked_lm_positions"], mb["sample_seeds"])
            mlm = F.cross_entropy(mlm_logits.reshape(-1, self.vocab), mb["masked_lm_labels"].reshape(-1),
                                  ignore_index=-1, reduction="sum") / tokens
            nsp = F.cross_entropy(nsp_logits, mb["next_sentence_labels"], reduction="sum") / self.global_batch
            (mlm + nsp).backward()
            total += mlm.item() + nsp.item()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.schedule.apply(self.opt, self.step)
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        self.losses.append(total)


def quiet(fn, *args):
    with open(os.devnull, "w") as devnull:
        stdout, sys.stdout = sys.stdout, devnull
        try:
            return fn(*args)
        finally:
            sys.stdout = stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60, help="optimizer steps of each loop")
    ap.add_argument("--micro-batch", type=int, default=8)
    ap.add_argument("--global-batch", type=int, default=32)
    ap.add_argument("--skip", type=int, default=3, help="warm-up steps left out")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    a = ap.parse_args()
    warmup = 2
    with tempfile.TemporaryDirectory(prefix="trn-bench-") as tmp:
        data = os.path.join(tmp, "data")
        assert quiet(cli_main, ["prepare-data", "--input", FORTUNES, "--output", data, "--dupe-factor",
                                "2", "--num-shards", "2"]) == 0
        out = os.path.join(tmp, "trainer")
        args = build_parser().parse_args([
            "pretrain", "--data", data, "--output", out, "--model", "tiny", "--micro-batch",
            str(a.micro_batch), "--global-batch", str(a.global_batch), "--steps", str(a.steps),
            "--log-every", str(10**6), "--no-plot", "--no-tensorboard", "--warmup", str(warmup),
            "--seed", str(SEED)])
        from trn_trainer.heartbeat import Heartbeat
        from trn_trainer.tasks.pretrain import Trainer

        trainer = Trainer(args, Heartbeat(0, env={}))
        quiet(trainer.start)
        plain = PlainLoop(data, a.steps, a.micro_batch, a.global_batch, warmup)
        load_before = os.getloadavg()[0]
        t_times, p_times = [], []
        for i in range(a.steps):
            order = ((trainer, t_times), (plain, p_times))
            for loop, times in (order if i % 2 == 0 else order[::-1]):
                t0 = time.perf_counter()
                quiet(loop.one_step)
                times.append(time.perf_counter() - t0)
        load_after = os.getloadavg()[0]
        quiet(trainer.finish, True)
        with open(os.path.join(out, "metrics.jsonl")) as f:
            rows = [json.loads(line) for line in f]
        vocab = plain.vocab

    worst = max(abs(r["loss"] - p) for r, p in zip(rows, plain.losses))
    t_times, p_times = t_times[a.skip:], p_times[a.skip:]
    data_times = [r["data_time_s"] for r in rows][a.skip:]
    med_t, med_p = statistics.median(t_times), statistics.median(p_times)
    pair = statistics.median(t / p for t, p in zip(t_times, p_times))
    med_d = statistics.median(data_times)
    ratio, share = med_t / med_p, med_d / med_t
    print(f"tiny BERT (2 layers, hidden 128, vocab {vocab}), seq 128, micro-batch {a.micro_batch} x "
          f"accumulation {a.global_batch // a.micro_batch} = {a.global_batch} sequences per step, "
          f"dropout 0.1 (per-sample masks), AdamW, clip 1.0; torch {torch.__version__}, "
          f"{torch.get_num_threads()} intra-op thread(s), {os.cpu_count()} CPUs; {len(t_times)} paired "
          f"steady-state steps; load average {load_before:.1f} -> {load_after:.1f}")
    print(f"losses of the two loops agree to {worst:.1e} (same math)")
    print()
    print(f"| {'per optimizer step':<30} | {'trainer':>10} | {'plain loop':>11} | {'ratio':>6} |")
    print(f"|{'-' * 32}|{'-' * 12}|{'-' * 13}|{'-' * 8}|")
    print(f"| {'median time (ms)':<30} | {1e3 * med_t:>10.1f} | {1e3 * med_p:>11.1f} | {ratio:>6.3f} |")
    print(f"| {'median of per-pair ratios':<30} | {'':>10} | {'':>11} | {pair:>6.3f} |")
    print(f"| {'mean time (ms)':<30} | {1e3 * statistics.fmean(t_times):>10.1f} | "
          f"{1e3 * statistics.fmean(p_times):>11.1f} | "
          f"{statistics.fmean(t_times) / statistics.fmean(p_times):>6.3f} |")
    print(f"| {'throughput (seq/s, median)':<30} | {a.global_batch / med_t:>10.1f} | "
          f"{a.global_batch / med_p:>11.1f} | {med_p / med_t:>6.3f} |")
    print(f"| {'data loading (ms, median)':<30} | {1e3 * med_d:>10.2f} | {'preloaded':>11} | {'':>6} |")
    print(f"| {'data loading, share of step':<30} | {100 * share:>9.2f}% | {'':>11} | {'':>6} |")
    print()
    ok = ratio <= 1.10 and share < 0.05 and worst < 1e-4
    print(f"targets: ratio <= 1.10 -> {ratio:.3f} {'met' if ratio <= 1.10 else 'MISSED'}; "
          f"data < 5% -> {100 * share:.2f}% {'met' if share < 0.05 else 'MISSED'}")
    return 0 if ok or not a.check else 1


if __name__ == "__main__":
    sys.exit(main())
