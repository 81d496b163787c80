"""Causal-LM pre-training of Llama with tensor parallelism, data parallelism and ZeRO-1
(docs/llama.md#training): `python3 -m trn_trainer pretrain-lm`.

The world is tp x dp ranks (parallel/lm_groups.py). Every tensor-parallel degree starts from the same
full weights (LlamaForCausalLM.init_parameters), so the same global batch gives the same
losses at any tp and dp, as the BERT trainer's world-size invariance does. The gradients are
averaged over the data-parallel group and clipped by their global norm (the tensor-parallel
shards' squares summed over the group, the norms' counted once). With --zero1 the AdamW state and
fp32 master values are sharded over the data-parallel group (parallel/zero1.py: a reduce-scatter
and an all-gather a step).
"""

import json
import os
import time

import torch

from ..checkpoint.group import coordination
from ..data.lm_samples import LmData
from ..devices.choice import select_device
from ..environment import compile_run_variable, extracting_graphs_only, read_dist_env
from ..errors import UsageError
from ..heartbeat import Heartbeat, failure_text
from ..models.llama import LlamaForCausalLM
from ..models.llama_config import llama_config, llama_flops_per_token
from ..parallel.llama_shards import split_dim
from ..parallel.lm_groups import lm_groups
from ..parallel.lm_optim import average_over_data_parallel, build_optimizer, clip_gradients
from ..parallel.tensor_parallel import sum_sequence_parallel_gradients
from ..parallel.zero1 import Zero1AdamW
from ..training.fp32_gradients import StepGradients
from ..tensorboard_events import run_events
from ..training.master_weights import TrainedWeights
from ..training.setting_checks import native_path
from ..training.optim import WarmupDecay, warmup_steps
from ..weights import tp_weights
from .pretrain_lm_checks import check_args, check_host_memory, check_sequence_splits
from .pretrain_lm_log import LmStepLog
from .pretrain_lm_saves import LmSaves


def data_and_config(args):
    """The run's samples, its vocabulary's size and the model's configuration (checked to split
    over --tensor-parallel)."""
    data = LmData(args.data, args.seed)
    config = llama_config(args.model, data.vocab_size or args.vocab_size)  # llama3-*: Meta's vocabulary
    if data.max_token >= config.vocab_size:
        raise UsageError(f"--data {args.data} holds token {data.max_token}, outside the vocabulary of "
                         f"{config.vocab_size} of --model {args.model}: give --vocab-size or the data's "
                         "prepare_lm.json")
    return data, config.vocab_size, config.check(args.tensor_parallel)


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
    if native_path(args):
        from .pretrain_lm_native import train_native  # it imports this module's helpers

        return train_native(args, env, heartbeat, dp)
    device = select_device(args.device, args.dtype, env)
    device.init_process_group()
    ranks = coordination(env, snapshots=False)
    groups = lm_groups(env.rank, env.world_size, args.tensor_parallel, device.group_options,
                       device.tensor_parallel_mesh(env.world_size, args.tensor_parallel))
    device.manual_seed(args.seed)
    main = env.rank == 0

    def say(message):
        if main:
            print(message, flush=True)

    data, vocab_size, config = data_and_config(args)
    if args.sequence_parallel:
        check_sequence_splits(data.seq_len, args.tensor_parallel, args.data, native=False)
    check_host_memory(args, env, device, config, args.tensor_parallel, native=False)
    recompute = device.checkpoint if args.activation_checkpointing == "selective" else None
    weights = TrainedWeights(device.prepare_model(LlamaForCausalLM(
        config, groups.tp, seed=args.seed, recompute=recompute, sequence_parallel=args.sequence_parallel)))
    forward = _compiled(weights.model, device) if args.compile else weights.model
    optimizer = build_optimizer(weights.stepped, args, groups)
    schedule = WarmupDecay(args.lr, warmup_steps(args.warmup, args.steps), args.steps)
    run = {"model": args.model, "seq_len": data.seq_len, "global_batch": args.global_batch,
           "vocab_size": vocab_size}
    saves = LmSaves(args, env, groups, ranks, device.snapshot_overlaps, weights.stepped, say)
    extract = extracting_graphs_only()  # trn-run's compile phase: trace the steps, write nothing
    writes = main and not extract
    start, consumed = 0, 0
    state = None if extract else saves.resume(run, weights.state(), optimizer)
    if state is not None:
        weights.load(state["model"])
        saves.restore_optimizer(optimizer, state)
        start, consumed = int(state["step"]), int(state["consumed_samples"])
    elif args.init_from and not extract:  # weights convert split wrote; fresh optimizer, step 0
        weights.load(tp_weights.read_rank(args.init_from, groups.tp, config))
        say(f"started from the weights in {args.init_from}")
    state = None  # the host copy is not needed any more
    if writes:
        os.makedirs(args.output, exist_ok=True)
    if main:
        parameters = sum(p.numel() * (1 if split_dim(n) is None else groups.tp.size)
                         for n, p in weights.model.named_parameters())
        print(f"trn_trainer: llama {args.model} ({parameters:,} parameters, tp {groups.tp.size} x "
              f"dp {dp}) on {device.describe()}, micro-batch {args.micro_batch} x "
              f"accumulation {args.global_batch // (args.micro_batch * dp)} x dp {dp} = global batch "
              f"{args.global_batch} of {data.seq_len} tokens", flush=True)
    if extract:
        say(f"{compile_run_variable()} is set: running {args.steps} steps to produce every graph and "
            "writing nothing")
    metrics = _metrics_file(args.output, start) if writes else None
    events = run_events(args, start) if writes else None
    log = LmStepLog(args, device, data.seq_len, metrics, events, main)
    started = time.time()
    heartbeat.step_done(start)
    names = [n for n, _ in weights.model.named_parameters()]
    step_gradients = StepGradients(p for _, p in weights.model.named_parameters())
    for step in range(start + 1, args.steps + 1):
        batches = data.micro_batches(consumed, args.global_batch, args.micro_batch, dp, groups.dp_rank)
        loss_sum = None
        for batch in device.micro_batches([{"ids": ids} for ids in batches]):
            with device.autocast():
                loss = forward(batch["ids"], batch["ids"]) / len(batches)
            loss.backward()
            step_gradients.micro_step_done()
            loss_sum = loss.detach().float() if loss_sum is None else loss_sum + loss.detach().float()
        grads = step_gradients.gradients()
        if weights.model.sequence_parallel:  # the norms saw only this rank's slice of the sequence
            sum_sequence_parallel_gradients([g for n, g in zip(names, grads) if split_dim(n) is None],
                                            weights.model.tp)
        if isinstance(optimizer, Zero1AdamW):  # one reduce-scatter into this rank's part
            average_over_data_parallel([loss_sum], groups)
            norm = optimizer.reduce_gradients(grads, weights.model.tp, args.grad_clip)
        else:
            average_over_data_parallel(grads + [loss_sum], groups)
            norm = clip_gradients(list(zip(names, grads)), weights.model.tp, args.grad_clip)
        lr = schedule.apply(optimizer, step)
        saves.fence()
        weights.optimizer_step(optimizer, grads)
        step_gradients.step_done()
        weights.model.zero_grad(set_to_none=False)
        if weights.master:  # the fp32 copies' gradients are made anew from the model's each step
            optimizer.zero_grad(set_to_none=True)
        consumed += args.global_batch
        due = step == args.steps or (args.checkpoint_every and step % args.checkpoint_every == 0)
        log.step(step, loss_sum, norm, lr, read_now=due or step % args.log_every == 0)
        device.step_end()  # XLA: cut and run the step's graph; the reads follow it
        heartbeat.step_done(step)
        if due and not extract:
            progress = {"step": step, "consumed_samples": consumed, "model_config": config.to_dict()}
            save_checkpoint(saves, heartbeat, events, log, step,
                            lambda: (weights.state(), optimizer, progress, run), last=step == args.steps)
    saves.finish()
    losses = log.losses
    finish_run(args, main, writes, metrics, events, losses,
               lambda: _report(args, config, data, losses, started, groups.tp.size, dp, saves.report()))
    device.barrier()
    device.shutdown()
    return losses


def save_checkpoint(saves, heartbeat, events, log, step, capture, last):
    """A due checkpoint of `step` (capture() gives what is saved): the heartbeat says so while the
    step waits on it, TensorBoard records the step's stall, and the step clock starts again (the
    save's time is not the next step's)."""
    with heartbeat.checkpointing():
        stall_s = saves.save(step, capture, last=last)
    if events is not None and stall_s is not None:
        events.checkpoint_stall(step, stall_s)
    log.restart_clock()


def finish_run(args, main, writes, metrics, events, losses, summarize):
    """Closes the run's metrics and TensorBoard files and says how it ended; summarize() writes
    results.json and returns its summary."""
    if writes:
        metrics.close()
        if events is not None:
            events.close()
    if main and not losses:  # resumed from the last step: nothing left to train
        print(f"done: the run in {args.output} already reached step {args.steps}", flush=True)
    elif writes:
        summary = summarize()
        print(f"done: final loss {losses[-1]}, average {summary['tokens_per_s']:,.0f} tokens/s; results in "
              f"{os.path.join(args.output, 'results.json')}", flush=True)


def _compiled(model, device):
    """torch.compile's version of `model` (the same parameters): fused kernels for the
    memory-bound parts of a step (norms, rotary, the loss), which eager PyTorch runs one by one."""
    if device.kind == "xla":
        raise UsageError("--compile on XLA: torch-xla traces and compiles the step's graph itself; leave "
                         "--compile out")
    return torch.compile(model)


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


def _report(args, config, data, losses, started, tp_size, dp, checkpoints):
    seconds = time.time() - started
    tokens_per_s = len(losses) * args.global_batch * data.seq_len / seconds
    flops = llama_flops_per_token(config, data.seq_len) * tokens_per_s
    results = {"results": {
        "metrics": [{"MetricName": "Final loss", "MeasuredValue": losses[-1], "Units": "None"},
                    {"MetricName": "Average throughput", "MeasuredValue": tokens_per_s, "Units": "tokens/s"},
                    {"MetricName": "Model TFLOP/s", "MeasuredValue": flops / 1e12, "Units": "TFLOP/s"}],
        "parameters": {"model": args.model, "tensor_parallel": tp_size, "data_parallel": dp,
                       "zero1": bool(args.zero1 and dp > 1), "global_batch": args.global_batch,
                       "micro_batch": args.micro_batch, "seq_len": data.seq_len, "steps": args.steps,
                       "config": config.to_dict()},
        "checkpoints": checkpoints}}
    with open(os.path.join(args.output, "results.json.tmp"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    os.replace(os.path.join(args.output, "results.json.tmp"), os.path.join(args.output, "results.json"))
    return {"tokens_per_s": tokens_per_s}
