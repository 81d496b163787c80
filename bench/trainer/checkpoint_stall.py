#!/usr/bin/env python3
"""What a checkpoint costs the training step, on CPU, side by side in one run.

For each model (tiny, and base: about 88M parameters with this corpus's vocabulary) the trainer
runs the same steps three ways: checkpoints only at the end, a synchronous torch.save every step
(--checkpoint-mode sync), and the checkpoint engine every step (--checkpoint-mode async, the
default: on CPU the snapshot copy overlaps the next step's forward and backward, a background
thread writes). Reported from each run's results.json: the stall per save (what the step paid:
waiting for the snapshot before the optimizer step, or the whole write when sync) over the
median step time, the time per step relative to the run without per-step checkpoints, and the
host memory the snapshot holds. The engine against torch.distributed.checkpoint:
bench/trainer/checkpoint_engines.py.

Goals: stall at most 1% of a step; a checkpoint every step costs at most 5% of throughput.
On a Trainium or GPU host the step's work is on the device and the writer thread has host
cores to itself; --train-threads 1 models that on this machine (training on one core, the
writer on the other).
Usage: scripts/python bench/trainer/checkpoint_stall.py [--tiny-steps N] [--base-steps N]
       [--train-threads N]
"""

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "trainer"))

from trn_trainer.cli import main as cli_main  # noqa: E402

FORTUNES = "/usr/share/games/fortunes"


def quiet(*args):
    with contextlib.redirect_stdout(io.StringIO()):
        return cli_main(*args)


def run(data, out, model, steps, micro, global_batch, *extra):
    assert quiet(["pretrain", "--data", data, "--output", out, "--model", model, "--micro-batch",
                  str(micro), "--global-batch", str(global_batch), "--steps", str(steps),
                  "--log-every", "1", "--no-plot", "--keep-checkpoints", "1"] + list(extra)) == 0
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)["results"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny-steps", type=int, default=40)
    parser.add_argument("--base-steps", type=int, default=8)
    parser.add_argument("--train-threads", type=int, default=0,
                        help="CPU threads training may use (0: torch's default, every core); fewer "
                        "leave cores to the writer, as an accelerator's host does")
    args = parser.parse_args()
    import torch
    if args.train_threads:
        torch.set_num_threads(args.train_threads)
    print(f"training threads: {torch.get_num_threads()} of {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        assert quiet(["prepare-data", "--input", FORTUNES, "--output", data, "--dupe-factor", "1",
                      "--num-shards", "2", "--name", "fortunes"]) == 0
        print("| model | parameters | checkpoints | stall per save | step median | stall / step | "
              "time per step vs end-only | saves (skipped) | host buffers |")
        print("|---|---|---|---|---|---|---|---|---|")
        for model, steps, micro, batch in (("tiny", args.tiny_steps, 8, 32),
                                           ("base", args.base_steps, 2, 4)):
            results = {}
            for name, extra in (("end only", ("--checkpoint-every", "0")),
                                ("sync torch.save, every step",
                                 ("--checkpoint-every", "1", "--checkpoint-mode", "sync")),
                                ("engine (async), every step", ("--checkpoint-every", "1"))):
                out = os.path.join(work, f"{model}-{len(results)}")
                results[name] = run(data, out, model, steps, micro, batch, *extra)
            base = results["end only"]
            params = base["parameters"]["parameter_count"]
            for name, r in results.items():
                if name == "end only":
                    continue
                ck = r["checkpoints"]
                stall, step = ck["stall_median_s"], r["step_time_median_s"]
                # Step times leave the save out: the step's real cost is step + stall.
                cost = (step + stall) / base["step_time_median_s"]
                print(f"| {model} | {_count(params)} | {name} | {1000 * stall:.1f} ms | "
                      f"{1000 * step:.1f} ms | "
                      f"{100 * stall / step:.2f}% | {cost:.3f} | "
                      f"{ck['saves']} ({ck['skipped_in_flight']}) | "
                      f"{ck['host_buffer_bytes'] / 1e6:.0f} MB |")


def _count(params):
    return f"{params / 1e6:.1f}M"


if __name__ == "__main__":
    main()
