#!/usr/bin/python3
"""pretrain-lm on CPU: tokens/s and MFU of Llama tiny and 100M, tensor parallel 1 against 2 at
the same global batch, side by side in one run (docs/llama.md).

Each configuration runs as the trainer runs under trn-run: tp 1 as one process, tp 2 as two
gloo processes (torchrun), the machine's cores split evenly among the processes
(OMP_NUM_THREADS), so both use the whole machine. The runs alternate (tp1, tp2, tp1, tp2, ...)
so that load from other jobs hits both alike. Per run: the median tokens/s of the steps after
the first (metrics.jsonl). MFU is the model's FLOP/s (llama_flops_per_token: 6 x weights + the
attention term) over a peak measured here, the fp32 matmul rate of this machine's cores with
the same thread count, since a CPU has no published peak the trainer knows. The losses of tp 1
and tp 2 must agree (checked), so the comparison is of the same computation.

Usage: /usr/bin/python3 bench/trainer/llama_throughput.py [--repeats N] [--steps N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINER = os.path.join(ROOT, "trainer")
sys.path.insert(0, TRAINER)

import torch  # noqa: E402

from trn_trainer.llama_config import llama_config, llama_flops_per_token  # noqa: E402

FORTUNES = "/usr/share/games/fortunes"
PYTHON = "/usr/bin/python3"
# model: (sequence length, global batch, micro-batch)
MODELS = {"tiny": (128, 16, 2), "100m": (128, 4, 1)}


def matmul_peak(threads, size=1024, seconds=2.0):
    """fp32 FLOP/s of repeated square matmuls on `threads` threads (the best of 5 rounds)."""
    torch.set_num_threads(threads)
    a, b = torch.randn(size, size), torch.randn(size, size)
    best = 0.0
    for _ in range(5):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 5:
            torch.mm(a, b)
            count += 1
        best = max(best, 2 * size ** 3 * count / (time.perf_counter() - start))
    return best


def run(model, tp, data, out, steps, cores):
    seq, global_batch, micro = MODELS[model]
    env = dict(os.environ, PYTHONPATH=TRAINER, OMP_NUM_THREADS=str(max(1, cores // tp)))
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TRN_WATCH_DIR"):
        env.pop(name, None)
    args = ["-m", "trn_trainer", "pretrain-lm", "--data", data, "--output", out, "--model", model,
            "--tensor-parallel", str(tp), "--global-batch", str(global_batch), "--micro-batch", str(micro),
            "--steps", str(steps), "--device", "cpu", "--log-every", str(steps)]
    if tp > 1:
        args = ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(tp), "-r", "1",
                "-t", "1", "-m", "trn_trainer"] + args[2:]
    done = subprocess.run([PYTHON] + args, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{model} tp {tp} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    rows = [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))]
    return statistics.median(r["tokens_per_s"] for r in rows[1:]), [r["loss"] for r in rows]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs of each configuration")
    parser.add_argument("--steps", type=int, default=5, help="optimizer steps per run (the first is dropped)")
    parser.add_argument("--models", default="tiny,100m")
    a = parser.parse_args()
    cores = os.cpu_count()
    peaks = {tp: matmul_peak(max(1, cores // tp)) * tp for tp in (1, 2)}
    print(f"peak (fp32 matmul, {cores} cores): {peaks[1] / 1e9:.1f} GFLOP/s as 1 process, "
          f"{peaks[2] / 1e9:.1f} as 2")
    with tempfile.TemporaryDirectory() as tmp:
        print("| model | parameters | tp | tokens/s (median of runs) | MFU | tp2 / tp1 |")
        print("|---|---|---|---|---|---|")
        for model in a.models.split(","):
            seq = MODELS[model][0]
            data = os.path.join(tmp, f"data-{model}")
            subprocess.run([PYTHON, "-m", "trn_trainer", "prepare-lm", "--input", FORTUNES, "--output",
                            data, "--seq-len", str(seq), "--vocab-size", "2000"],
                           env=dict(os.environ, PYTHONPATH=TRAINER), check=True, capture_output=True)
            config = llama_config(model, 2000)
            flops_per_token = llama_flops_per_token(config, seq)
            rates, losses = {1: [], 2: []}, {}
            for i in range(a.repeats):
                for tp in (1, 2):
                    out = os.path.join(tmp, f"{model}-{tp}-{i}")
                    rate, losses[tp] = run(model, tp, data, out, a.steps, cores)
                    rates[tp].append(rate)
            worst = max(abs(x - y) for x, y in zip(losses[1], losses[2]))
            if worst > 1e-3:
                sys.exit(f"{model}: tp 1 and tp 2 trained different losses (worst {worst})")
            params = sum(p.numel() for p in _parameters(config))
            median = {tp: statistics.median(r) for tp, r in rates.items()}
            for tp in (1, 2):
                mfu = median[tp] * flops_per_token / peaks[tp]
                ratio = f"{median[2] / median[1]:.2f}" if tp == 2 else ""
                print(f"| {model} | {params / 1e6:.1f}M | {tp} | {median[tp]:,.0f} "
                      f"({', '.join(f'{r:,.0f}' for r in rates[tp])}) | {mfu:.1%} | {ratio} |", flush=True)


def _parameters(config):
    from trn_trainer.llama import LlamaForCausalLM

    return LlamaForCausalLM(config).parameters()


if __name__ == "__main__":
    main()
