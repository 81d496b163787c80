#!/usr/bin/env python3
"""pretrain-lm on CPU: tokens/s and MFU of Llama tiny and 100M, tensor parallel 1 against 2 at
the same global batch, side by side in one run (docs/llama.md).

Each configuration runs as the trainer runs under trn-run: tp 1 as one process (with every
core's thread, and with one thread: on a small VM OpenMP's second thread can cost more than it
gives), tp 2 as two gloo processes (torchrun) with the cores split between them
(OMP_NUM_THREADS). The runs alternate (one of each configuration, then again) so that load from
other jobs hits all alike. Per run: the median tokens/s of the steps after
the first (metrics.jsonl). MFU is the model's FLOP/s (llama_flops_per_token: 6 x weights + the
attention term) over a peak measured here, since a CPU has no published peak the trainer knows:
the fp32 matmul rate of as many processes at once, with the same threads each, as the run has.
The losses of tp 1 and tp 2 must agree (checked), so the comparison is of the same computation.

Usage: scripts/python bench/trainer/llama_throughput.py [--repeats N] [--steps N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINER = os.path.join(ROOT, "trainer")
sys.path.insert(0, TRAINER)


from trn_trainer.models.llama_config import llama_config, llama_flops_per_token  # noqa: E402

FORTUNES = "/usr/share/games/fortunes"
PYTHON = sys.executable  # the project's environment (scripts/python), as pytest itself runs in it
# model: (sequence length, global batch, micro-batch)
MODELS = {"tiny": (128, 16, 2), "100m": (128, 4, 1)}


_PEAK = """
import sys, time, torch
threads, size, seconds = int(sys.argv[1]), 1024, float(sys.argv[2])
torch.set_num_threads(threads)
a, b = torch.randn(size, size), torch.randn(size, size)
count, start = 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    torch.mm(a, b)
    count += 1
print(2 * size ** 3 * count / (time.perf_counter() - start))
"""


def matmul_peak(processes, threads, seconds=3.0):
    """fp32 FLOP/s of square matmuls in `processes` processes at once, `threads` each."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    procs = [subprocess.Popen([PYTHON, "-c", _PEAK, str(threads), str(seconds)],
                              stdout=subprocess.PIPE, text=True, env=env) for _ in range(processes)]
    return sum(float(p.communicate()[0]) for p in procs)


def run(model, tp, threads, data, out, steps):
    seq, global_batch, micro = MODELS[model]
    env = dict(os.environ, PYTHONPATH=TRAINER, OMP_NUM_THREADS=str(threads))
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
    # (tp, threads per process): tp 1 on every core and on one (OpenMP's threads do not always
    # pay on a small VM), tp 2 with the cores split between its processes.
    configs = [(1, cores), (1, 1), (2, max(1, cores // 2))]
    peak = max(max(matmul_peak(1, cores), matmul_peak(cores, 1)) for _ in range(3))
    print(f"peak (fp32 matmul, {cores} cores, the best of 1 process x {cores} threads and {cores} x 1, "
          f"3 tries): {peak / 1e9:.1f} GFLOP/s")
    with tempfile.TemporaryDirectory() as tmp:
        print("| model | parameters | tp x threads | tokens/s (median; each run) | MFU | vs the best tp 1 |")
        print("|---|---|---|---|---|---|")
        for model in a.models.split(","):
            seq = MODELS[model][0]
            data = os.path.join(tmp, f"data-{model}")
            subprocess.run([PYTHON, "-m", "trn_trainer", "prepare-lm", "--input", FORTUNES, "--output",
                            data, "--seq-len", str(seq), "--vocab-size", "2000"],
                           env=dict(os.environ, PYTHONPATH=TRAINER), check=True, capture_output=True)
            config = llama_config(model, 2000)
            flops_per_token = llama_flops_per_token(config, seq)
            rates, losses = {c: [] for c in configs}, {}
            for i in range(a.repeats):
                for tp, threads in configs:
                    out = os.path.join(tmp, f"{model}-{tp}-{threads}-{i}")
                    rate, losses[tp, threads] = run(model, tp, threads, data, out, a.steps)
                    rates[tp, threads].append(rate)
            reference = losses[configs[0]]
            worst = max(abs(x - y) for c in configs for x, y in zip(reference, losses[c]))
            if worst > 1e-3:
                sys.exit(f"{model}: the configurations trained different losses (worst {worst})")
            params = sum(p.numel() for p in _parameters(config))
            median = {c: statistics.median(r) for c, r in rates.items()}
            best_tp1 = max(median[c] for c in configs if c[0] == 1)
            for c in configs:
                mfu = median[c] * flops_per_token / peak
                print(f"| {model} | {params / 1e6:.1f}M | {c[0]} x {c[1]} | {median[c]:,.0f} "
                      f"({', '.join(f'{r:,.0f}' for r in rates[c])}) | {mfu:.1%} "
                      f"| {median[c] / best_tp1:.2f} |", flush=True)
            print(f"losses agree within {worst:.1e}", flush=True)


def _parameters(config):
    from trn_trainer.models.llama import LlamaForCausalLM

    return LlamaForCausalLM(config).parameters()


if __name__ == "__main__":
    main()
