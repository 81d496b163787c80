#!/usr/bin/env python3
"""pretrain-lm's ZeRO-1 optimizer step on CPU (gloo), torch's ZeroRedundancyOptimizer (the
trainer's before 9ce38e6: a flat all-reduce of the gradients, then AdamW on the rank's own
parameters and a broadcast of each parameter from its owner) against parallel/zero1.py (one
reduce-scatter and one all-gather), side by side in one run, on the same Llama parameters and
the same gradients at data parallel 4 (docs/llama.md#zero-1).

Per optimizer step and rank: the collectives issued (counted), the bytes a rank sends for them
under ring algorithms, from each call's op and tensor size (all-reduce 2(n-1)/n of the tensor,
reduce-scatter (n-1)/n of its input, all-gather (n-1) times its input, broadcast (n-1)/n of the
tensor, n the group's size), and the median wall time of the step's communication and update
(the gradients are given, the forward and backward left out). After
the steps, both must hold the same parameters (checked), so they compare the same computation.

Then, for llama2_7b at tp 8 (its profile), from the shapes alone (meta tensors): how much
larger ZeRO-1's flat vector is than the parameters (each rank's part padded to the largest; a
rank owns whole parameters, so a vocabulary-sized one sets the floor), and the bytes a rank
sends a step under either optimizer at data parallel 16 and 64 (4 and 16 trn1.32xlarge nodes).

Usage: scripts/python bench/trainer/zero1_step.py [--model tiny|100m] [--dp 4] [--steps 6]
"""

import argparse
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "trainer"))

from trn_trainer.models.llama import LlamaForCausalLM  # noqa: E402
from trn_trainer.models.llama_config import llama_config  # noqa: E402
from trn_trainer.parallel.lm_groups import lm_groups  # noqa: E402
from trn_trainer.parallel.lm_optim import average_over_data_parallel, clip_gradients  # noqa: E402
from trn_trainer.parallel.llama_shards import split_dim  # noqa: E402
from trn_trainer.parallel.tensor_parallel import TensorParallel  # noqa: E402
from trn_trainer.parallel.zero1 import Zero1AdamW, partition  # noqa: E402

# What a rank sends per byte of the call's input tensor, in a group of n, under ring algorithms.
SENT_PER_INPUT_BYTE = {"all_reduce": lambda n: 2 * (n - 1) / n, "broadcast": lambda n: (n - 1) / n,
                       "reduce_scatter_tensor": lambda n: (n - 1) / n,
                       "reduce_scatter_single": lambda n: (n - 1) / n,
                       "all_gather_into_tensor": lambda n: n - 1, "all_gather_single": lambda n: n - 1,
                       "all_gather": lambda n: n - 1}


class Traffic:
    """Counts the collectives torch.distributed is asked for, and the bytes a rank sends."""

    def __init__(self, group_size):
        self.calls, self.bytes, self.n = 0, 0, group_size
        for name, per_byte in SENT_PER_INPUT_BYTE.items():
            if hasattr(dist, name):
                setattr(dist, name, self._counted(getattr(dist, name), per_byte))

    def _counted(self, fn, per_byte):
        def call(*args, **kwargs):
            self.calls += 1
            tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
            if tensors:  # the input: the last tensor argument (all_gather's list comes first)
                self.bytes += tensors[-1].numel() * tensors[-1].element_size() * per_byte(self.n)
            return fn(*args, **kwargs)
        return call


def model_params(model_name, groups, seed):
    model = LlamaForCausalLM(llama_config(model_name, 32000), groups.tp, seed=seed)
    return list(model.named_parameters())


def worker(rank, world, model_name, steps, port, results):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    traffic = Traffic(world)
    groups = lm_groups(rank, world, 1)
    options = dict(lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    runs = {}
    for kind in ("zero_redundancy", "zero1"):
        named = model_params(model_name, groups, seed=1)
        if kind == "zero1":
            optimizer = Zero1AdamW(named, weight_decay=0.1, groups=groups, **options)
        else:
            from torch.distributed.optim import ZeroRedundancyOptimizer

            decay = [p for n, p in named if not n.endswith("norm.weight")]
            optimizer = ZeroRedundancyOptimizer(decay, optimizer_class=torch.optim.AdamW,
                                                process_group=groups.dp_group, weight_decay=0.1, **options)
            optimizer.add_param_group({"params": [p for n, p in named if n.endswith("norm.weight")],
                                       "weight_decay": 0.0})
        times, calls, sent = [], [], []
        for step in range(steps):
            generator = torch.Generator().manual_seed(1000 * step + rank)  # each rank its own
            for _, p in named:
                p.grad = torch.randn(p.shape, generator=generator) * 1e-3
            loss = torch.ones(())
            dist.barrier()
            traffic.calls = traffic.bytes = 0
            started = time.perf_counter()
            if kind == "zero1":
                average_over_data_parallel([loss], groups)
                optimizer.reduce_gradients([p.grad for _, p in named], groups.tp, 1.0)
            else:
                average_over_data_parallel([p.grad for _, p in named] + [loss], groups)
                clip_gradients([(n, p.grad) for n, p in named], groups.tp, 1.0)
            optimizer.step()
            times.append(time.perf_counter() - started)
            calls.append(traffic.calls)
            sent.append(traffic.bytes)
        runs[kind] = {"seconds": statistics.median(times[1:]), "calls": calls[-1], "bytes": sent[-1],
                      "params": torch.cat([p.detach().reshape(-1) for _, p in named])}
    if rank == 0:
        difference = (runs["zero1"]["params"] - runs["zero_redundancy"]["params"]).abs().max().item()
        results.put({kind: {k: v for k, v in run.items() if k != "params"} for kind, run in runs.items()}
                    | {"max_difference": difference,
                       "parameters": sum(p.numel() for _, p in model_params(model_name, groups, 1))})
    dist.destroy_process_group()


def seven_b_at_tp8(dps=(16, 64), tp=8):
    """llama2_7b's per-rank parameter shapes at tp 8: ZeRO-1's vector and each optimizer's bytes."""
    with torch.device("meta"):
        model = LlamaForCausalLM(llama_config("7b", 32000), TensorParallel(), seed=0)
    shapes = []
    for name, p in model.named_parameters():
        shape = list(p.shape)
        if split_dim(name) is not None:
            shape[split_dim(name)] //= tp
        shapes.append((name, torch.empty(shape, device="meta")))
    total = sum(p.numel() for _, p in shapes)
    groups = [[p for n, p in shapes if not n.endswith("norm.weight")],
              [p for n, p in shapes if n.endswith("norm.weight")]]
    print(f"\nllama2_7b at tp 8: {total:,} parameters a rank, fp32 bytes a rank sends a step under "
          "ring algorithms")
    print("| data parallel | ZeRO-1 vector / parameters | ZeroRedundancyOptimizer + flat all-reduce GB | "
          "zero1.py GB | old/new | collectives old / new |")
    print("|---|---|---|---|---|---|")
    for dp in dps:
        part = max(sum(p.numel() for g in mine for p in g) for mine in partition(groups, dp))
        old = 4 * total * (2 * (dp - 1) / dp + (dp - 1) / dp)  # all-reduce, then every broadcast
        new = 4 * dp * part * 2 * (dp - 1) / dp  # reduce-scatter and all-gather of the vector
        print(f"| {dp} | {dp * part / total:.3f} | {old / 1e9:.2f} | {new / 1e9:.2f} | {old / new:.2f}x | "
              f"{len(shapes) + 2} / 5 |")  # old: the flat and the norm's all-reduces and a broadcast
        # per parameter; new: the loss's all-reduce, the reduce-scatter, the norm's over dp and
        # over tp, the all-gather


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", choices=("tiny", "100m"))
    parser.add_argument("--dp", type=int, default=4)
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    context = mp.get_context("spawn")
    results = context.Queue()
    port = 29000 + os.getpid() % 1000
    processes = [context.Process(target=worker, args=(r, args.dp, args.model, args.steps, port, results))
                 for r in range(args.dp)]
    for p in processes:
        p.start()
    result = results.get()
    for p in processes:
        p.join()
    old, new = result["zero_redundancy"], result["zero1"]
    print(f"Llama {args.model} ({result['parameters']:,} parameters), data parallel {args.dp}, gloo, "
          f"{args.steps} steps; parameters after the steps differ by at most {result['max_difference']:.2e}")
    print("| optimizer | collectives a step | MB a rank sends a step | step seconds (median) |")
    print("|---|---|---|---|")
    for name, run in (("ZeroRedundancyOptimizer + flat all-reduce", old), ("zero1.py", new)):
        print(f"| {name} | {run['calls']} | {run['bytes'] / 1e6:.1f} | {run['seconds']:.3f} |")
    print(f"ratios old/new: collectives {old['calls'] / new['calls']:.1f}x, bytes "
          f"{old['bytes'] / new['bytes']:.2f}x, time {old['seconds'] / new['seconds']:.2f}x")
    if result["max_difference"] > 1e-5:
        sys.exit("the two optimizers disagree: the comparison is not of the same computation")
    seven_b_at_tp8()


if __name__ == "__main__":
    main()
