"""pretrain-lm's native path (`--native`, `--device neuron`; docs/architecture.md#native-path): the
Llama of models/llama_native.py on torch.accelerator's device (TorchNeuron's neuron on trn2/trn3,
cuda) or the CPU, tensor parallel with DTensor and FSDP2 over a ("dp", "tp") DeviceMesh
(parallel/native_llama.py).

The step is the own path's: every layout starts from the same full weights, each data-parallel
rank reads its part of the global batch, the micro-steps' gradients accumulate (FSDP2
reduce-scatters and averages each micro-step's over dp into the fp32 gradient shards), AdamW with
the warm-up schedule and the gradients clipped by their global norm. The loss and its backward
run under loss_parallel at tp > 1 (the logits stay split along the vocabulary).
"""

import os
import time

import torch
import torch.distributed as dist

from ..checkpoint.group import coordination
from ..checkpoint.llama_native_state import NativeLayout
from ..devices.choice import select_device
from ..environment import compile_run_variable, extracting_graphs_only
from ..errors import UsageError
from ..models.llama_native import NativeLlamaForCausalLM, causal_lm_loss, next_token_labels
from ..parallel.lm_optim import build_optimizer
from ..parallel.native_llama import clip_gradients, loss_context, native_mesh, parallelize, whole_value
from ..tensorboard_events import run_events
from ..training.optim import WarmupDecay, warmup_steps
from .pretrain_lm import _metrics_file, _report, data_and_config, finish_run, save_checkpoint
from .pretrain_lm_checks import check_host_memory, check_sequence_splits
from .pretrain_lm_log import LmStepLog
from .pretrain_lm_saves import LmSaves

# What the own path has that the native path does otherwise: (option, set, why, fix).
_OWN_PATH_ONLY = (
    ("--zero1", lambda a: a.zero1, "FSDP2 already shards the optimizer state over data parallel",
     "leave --zero1 out"),
    ("--sequence-parallel", lambda a: a.sequence_parallel,
     "the native path always splits the norms along the sequence at tensor parallel above 1",
     "leave --sequence-parallel out"),
    ("--init-from", lambda a: a.init_from, "convert split's per-rank files are the own path's layout",
     "start the native run without it"),
)


def check_native_args(args):
    for option, given, why, fix in _OWN_PATH_ONLY:
        if given(args):
            raise UsageError(f"{option} with --native: {why}; {fix}")


class DynamoGraphs:
    """How many graphs torch.compile has made in this process (torch._dynamo's counters): the
    number stays the same once every shape has been seen, and grows on a recompilation."""

    def __init__(self, compiled):
        self.compiled = compiled

    def row(self):
        if not self.compiled:
            return {}
        from torch._dynamo.utils import counters

        return {"compiled_graphs": int(counters["stats"]["unique_graphs"])}


def train_native(args, env, heartbeat, dp):
    check_native_args(args)
    device = select_device(args.device, args.dtype, env, native=True)
    device.init_process_group()
    ranks = coordination(env, snapshots=False)
    mesh = native_mesh(device, env.world_size, args.tensor_parallel)
    dp_rank = mesh["dp"].get_local_rank()
    device.manual_seed(args.seed)
    main = env.rank == 0

    def say(message):
        if main:
            print(message, flush=True)

    data, vocab_size, config = data_and_config(args)
    check_sequence_splits(data.seq_len, args.tensor_parallel, args.data, native=True)
    recompute = device.checkpoint if args.activation_checkpointing == "selective" else None
    check_host_memory(args, env, device, config, env.world_size, native=True)
    with torch.device("meta"):  # nothing allocated until each rank holds only its shards
        whole = NativeLlamaForCausalLM(config, recompute=recompute)
    parameters = sum(p.numel() for p in whole.parameters())
    model = parallelize(whole, mesh, device, args.seed, compile_layers=args.compile)
    optimizer = build_optimizer(list(model.named_parameters()), args, groups=None)
    schedule = WarmupDecay(args.lr, warmup_steps(args.warmup, args.steps), args.steps)
    layout = NativeLayout(model, mesh)
    run = {"model": args.model, "seq_len": data.seq_len, "global_batch": args.global_batch,
           "vocab_size": vocab_size}
    saves = LmSaves(args, env, layout.groups, ranks, device.snapshot_overlaps, None, say, layout=layout)
    compile_only = extracting_graphs_only()  # trn-run's warm-up: compile the steps, write nothing
    writes = main and not compile_only
    start, consumed = 0, 0
    state = None if compile_only else saves.resume(run, layout.model_state(), optimizer)
    if state is not None:  # the checkpoint's chunks at this run's layout, whatever layout wrote it
        layout.restore(optimizer, state)
        start, consumed = int(state["step"]), int(state["consumed_samples"])
    state = None  # the host copy is not needed any more
    if writes:
        os.makedirs(args.output, exist_ok=True)
    if main:
        print(f"trn_trainer: llama {args.model} ({parameters:,} parameters, tp {args.tensor_parallel} x "
              f"dp {dp}, native: DTensor + FSDP2{', compiled' if args.compile else ''}) on "
              f"{device.describe()}, micro-batch {args.micro_batch} x accumulation "
              f"{args.global_batch // (args.micro_batch * dp)} x dp {dp} = global batch "
              f"{args.global_batch} of {data.seq_len} tokens", flush=True)
    if compile_only:
        say(f"{compile_run_variable()} is set: running {args.steps} steps to produce every graph and writing "
            "nothing")
    metrics = _metrics_file(args.output, start) if writes else None
    events = run_events(args, start) if writes else None
    log = LmStepLog(args, device, data.seq_len, metrics, events, main)
    graphs = DynamoGraphs(args.compile)
    dp_group = mesh["dp"].get_group()
    started = time.time()
    heartbeat.step_done(start)
    for step in range(start + 1, args.steps + 1):
        batches = data.micro_batches(consumed, args.global_batch, args.micro_batch, dp, dp_rank)
        loss_sum = torch.zeros((), dtype=torch.float32, device=device.torch_device)
        for batch in device.micro_batches([{"ids": ids} for ids in batches]):
            with loss_context(mesh):
                ids = batch["ids"]
                loss = causal_lm_loss(model(ids), next_token_labels(ids)) / len(batches)
                loss.backward()
            loss_sum += whole_value(loss.detach()).float()
        if dp > 1:  # the logged loss is the global batch's (FSDP2 averaged the gradients)
            dist.all_reduce(loss_sum, group=dp_group)
            loss_sum /= dp
        norm = clip_gradients(model.parameters(), args.grad_clip, foreach=True)
        lr = schedule.apply(optimizer, step)
        saves.fence()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        consumed += args.global_batch
        log.step(step, loss_sum, norm, lr, extra=graphs.row())
        heartbeat.step_done(step)
        if compile_only:
            continue
        if step == args.steps or (args.checkpoint_every and step % args.checkpoint_every == 0):
            progress = {"step": step, "consumed_samples": consumed, "model_config": config.to_dict()}
            save_checkpoint(saves, heartbeat, events, log, step,
                            lambda: (layout.model_state(), optimizer, progress, run), last=step == args.steps)
    saves.finish()
    losses = log.losses
    if compile_only:
        say(f"compiled {args.steps} steps; nothing written")
    finish_run(args, main, writes, metrics, events, losses,
               lambda: _report(args, config, data, losses, started, args.tensor_parallel, dp, saves.report()))
    device.barrier()
    device.shutdown()
    return losses
