"""Causal-LM pre-training of Llama with tensor parallelism, data parallelism and ZeRO-1
(docs/llama.md#training): `python3 -m trn_trainer pretrain-lm`.

The world is tp x dp ranks (lm_groups.py). Every tensor-parallel degree starts from the same
full weights (LlamaForCausalLM.init_parameters), so the same global batch gives the same
losses at any tp and dp, as the BERT trainer's world-size invariance does. The gradients are
averaged over the data-parallel group and clipped by their global norm (the tensor-parallel
shards' squares summed over the group, the norms' counted once). With --zero1 the AdamW state is
sharded over the data-parallel group (torch's ZeroRedundancyOptimizer).
"""

import json
import os
import time

import torch
import torch.distributed as dist

from .environment import read_dist_env
from .errors import UsageError
from . import lm_checkpoint
from .heartbeat import Heartbeat
from .llama import LlamaForCausalLM
from .llama_config import llama_config, llama_flops_per_token
from .llama_shards import split_dim
from .lm_data import LmData
from .lm_groups import lm_groups
from .optim import WarmupDecay, warmup_steps
from .train import failure_text


def check_args(args, world_size):
    if args.pipeline_parallel != 1:
        raise UsageError(f"--pipeline-parallel {args.pipeline_parallel}: the bundled trainer has no pipeline "
                         "schedule (docs/llama.md#status); use tensor_parallel and data parallelism, or a "
                         "profile running your own neuronx-distributed script (llama2_7b_nxd)")
    if args.steps < 1:
        raise UsageError(f"--steps {args.steps}: must be at least 1")
    if world_size % args.tensor_parallel:
        raise UsageError(f"--tensor-parallel {args.tensor_parallel} does not divide the world of "
                         f"{world_size} processes")
    dp = world_size // args.tensor_parallel
    if args.micro_batch < 1 or args.global_batch % (args.micro_batch * dp):
        raise UsageError(f"--global-batch {args.global_batch} is not a whole number of micro-batches "
                         f"{args.micro_batch} x data-parallel {dp}: make it a multiple of "
                         f"{args.micro_batch * dp}")
    if args.device != "cpu":
        raise UsageError(f"--device {args.device}: pretrain-lm runs on CPU so far (docs/llama.md#status)")
    return dp


def clip_gradients(model, max_norm):
    """The global gradient norm over every rank's shard; gradients scaled down to max_norm."""
    sharded = torch.zeros(())
    whole = torch.zeros(())
    for name, p in model.named_parameters():
        square = p.grad.float().pow(2).sum()
        if split_dim(name) is None:
            whole += square
        else:
            sharded += square
    norm = (model.tp.all_reduce(sharded) + whole).sqrt().item()
    if max_norm and norm > max_norm:
        for p in model.parameters():
            p.grad.mul_(max_norm / (norm + 1e-6))
    return norm


def build_optimizer(model, args, groups):
    decay = [p for n, p in model.named_parameters() if not n.endswith("norm.weight")]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("norm.weight")]
    param_groups = [{"params": decay, "weight_decay": args.weight_decay},
                    {"params": no_decay, "weight_decay": 0.0}]
    options = dict(lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    if args.zero1 and groups.dp_size > 1:
        from torch.distributed.optim import ZeroRedundancyOptimizer

        optimizer = ZeroRedundancyOptimizer(decay, optimizer_class=torch.optim.AdamW,
                                            process_group=groups.dp_group,
                                            weight_decay=args.weight_decay, **options)
        optimizer.add_param_group({"params": no_decay, "weight_decay": 0.0})
        return optimizer
    return torch.optim.AdamW(param_groups, **options)


def pretrain_lm(args):
    env = read_dist_env()
    heartbeat = Heartbeat(env.rank)
    try:
        summary = _train(args, env, heartbeat)
    except BaseException as e:
        heartbeat.stopped(failure_text(e))
        raise
    heartbeat.stopped()
    return summary


def _train(args, env, heartbeat):
    dp = check_args(args, env.world_size)
    if env.distributed:
        dist.init_process_group("gloo")
    groups = lm_groups(env.rank, env.world_size, args.tensor_parallel)
    torch.manual_seed(args.seed)
    data = LmData(args.data, args.seed)
    vocab_size = data.vocab_size or args.vocab_size
    if data.max_token >= vocab_size:
        raise UsageError(f"--data {args.data} holds token {data.max_token}, outside the vocabulary of "
                         f"{vocab_size}: give --vocab-size or the data's prepare_lm.json")
    config = llama_config(args.model, vocab_size).check(args.tensor_parallel)
    model = LlamaForCausalLM(config, groups.tp, seed=args.seed)
    optimizer = build_optimizer(model, args, groups)
    schedule = WarmupDecay(args.lr, warmup_steps(args.warmup, args.steps), args.steps)
    main = env.rank == 0
    meta = {"model": args.model, "seq_len": data.seq_len, "global_batch": args.global_batch,
            "vocab_size": vocab_size}
    start, consumed = _resume(args, model, optimizer, groups, meta, main)
    if main:
        os.makedirs(args.output, exist_ok=True)
        parameters = sum(p.numel() * (1 if split_dim(n) is None else groups.tp.size)
                         for n, p in model.named_parameters())
        print(f"trn_trainer: llama {args.model} ({parameters:,} parameters, tp {groups.tp.size} x "
              f"dp {dp}), micro-batch {args.micro_batch} x "
              f"accumulation {args.global_batch // (args.micro_batch * dp)} x dp {dp} = global batch "
              f"{args.global_batch} of {data.seq_len} tokens", flush=True)
    metrics = _metrics_file(args.output, start) if main else None
    started, losses = time.time(), []
    heartbeat.step_done(start)
    for step in range(start + 1, args.steps + 1):
        began = time.perf_counter()
        batches = data.micro_batches(consumed, args.global_batch, args.micro_batch, dp, groups.dp_rank)
        loss_sum = torch.zeros(())
        for ids in batches:
            loss = model(ids, ids) / len(batches)
            loss.backward()
            loss_sum += loss.detach()
        if dp > 1:
            for p in model.parameters():
                dist.all_reduce(p.grad, group=groups.dp_group)
                p.grad.div_(dp)
            dist.all_reduce(loss_sum, group=groups.dp_group)
            loss_sum /= dp
        norm = clip_gradients(model, args.grad_clip)
        lr = schedule.apply(optimizer, step)
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
        consumed += args.global_batch
        heartbeat.step_done(step)
        seconds = time.perf_counter() - began
        tokens_per_s = args.global_batch * data.seq_len / seconds
        losses.append(loss_sum.item())
        if main:
            metrics.write(json.dumps({"step": step, "loss": losses[-1], "lr": lr, "grad_norm": norm,
                                      "tokens_per_s": tokens_per_s, "step_time_s": seconds}) + "\n")
            metrics.flush()
            if step % args.log_every == 0 or step in (1, args.steps):
                print(f"step {step}/{args.steps} | loss {losses[-1]:.4f} | lr {lr:.3e} | "
                      f"{tokens_per_s:,.0f} tokens/s", flush=True)
        if step == args.steps or (args.checkpoint_every and step % args.checkpoint_every == 0):
            lm_checkpoint.save(args.output, step, consumed, model, optimizer, groups, meta, env.rank,
                               args.keep_checkpoints)
    if main:
        metrics.close()
    if main and not losses:  # resumed from the last step: nothing left to train
        print(f"done: the run in {args.output} already reached step {args.steps}", flush=True)
    elif main:
        summary = _report(args, config, data, losses, started, groups, dp)
        print(f"done: final loss {losses[-1]}, average {summary['tokens_per_s']:,.0f} tokens/s; results in "
              f"{os.path.join(args.output, 'results.json')}", flush=True)
    if env.distributed:
        dist.barrier()
        dist.destroy_process_group()
    return losses


def _resume(args, model, optimizer, groups, meta, main):
    """(step, samples consumed) of the newest committed checkpoint in --output, restored into the
    model and optimizer; (0, 0) without one or with --no-resume."""
    step = None if args.no_resume else lm_checkpoint.newest_step(args.output)
    if step is None:
        return 0, 0
    state = lm_checkpoint.load(args.output, step, groups, meta)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    if main:
        print(f"resumed from {os.path.join(args.output, lm_checkpoint.shard_name(step, 0))} (step {step}, "
              f"{state['consumed']} samples consumed)", flush=True)
    return step, state["consumed"]


def _metrics_file(output, start):
    """metrics.jsonl for appending, without the rows of steps after `start` (a resumed run
    trains them again)."""
    path = os.path.join(output, "metrics.jsonl")
    rows = []
    if start and os.path.exists(path):
        with open(path) as f:
            rows = [line for line in f if line.strip() and json.loads(line)["step"] <= start]
    with open(path, "w") as f:
        f.writelines(rows)
    return open(path, "a")


def _report(args, config, data, losses, started, groups, dp):
    seconds = time.time() - started
    tokens_per_s = len(losses) * args.global_batch * data.seq_len / seconds
    flops = llama_flops_per_token(config, data.seq_len) * tokens_per_s
    results = {"results": {
        "metrics": [{"MetricName": "Final loss", "MeasuredValue": losses[-1], "Units": "None"},
                    {"MetricName": "Average throughput", "MeasuredValue": tokens_per_s, "Units": "tokens/s"},
                    {"MetricName": "Model TFLOP/s", "MeasuredValue": flops / 1e12, "Units": "TFLOP/s"}],
        "parameters": {"model": args.model, "tensor_parallel": groups.tp.size, "data_parallel": dp,
                       "zero1": bool(args.zero1 and dp > 1), "global_batch": args.global_batch,
                       "micro_batch": args.micro_batch, "seq_len": data.seq_len, "steps": args.steps,
                       "config": config.to_dict()}}}
    with open(os.path.join(args.output, "results.json.tmp"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    os.replace(os.path.join(args.output, "results.json.tmp"), os.path.join(args.output, "results.json"))
    return {"tokens_per_s": tokens_per_s}
