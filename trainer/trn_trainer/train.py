"""The pre-training loop: validate everything, then train, checkpoint and report."""

import math
import os
import time

import torch
import torch.nn.functional as F

from . import checkpoint
from .configs import flops_per_sequence, model_config
from .data import StepLoader
from .devices import select_device
from .environment import read_dist_env
from .errors import UsageError
from .hf_model import build_model
from .metrics import (MetricsFile, TensorBoard, captured_environment, progress_line, read_rows,
                      summarize, write_results)
from .optim import DEFAULT_LR, WarmupDecay, build_optimizer, warmup_steps
from .reduction import GradientReducer
from .shards import open_shards
from .tokenizer import vocab_size_of

EXTRACT_GRAPH_STEPS = 5  # what the Neuron reference runs under neuron_parallel_compile


def _check_numbers(args, world):
    for name in ("micro_batch", "steps"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)}: must be at least 1")
    per_pass = args.micro_batch * world
    global_batch = args.global_batch if args.global_batch is not None else per_pass
    if global_batch < 1 or global_batch % per_pass:
        lower = max(per_pass, global_batch // per_pass * per_pass)
        raise UsageError(
            f"--global-batch {global_batch} is not divisible by --micro-batch {args.micro_batch} x "
            f"world size {world} = {per_pass}, so gradient accumulation would not be a whole number; "
            f"use a multiple of {per_pass} (e.g. {lower} or {lower + per_pass})")
    if not 0.0 <= args.dropout < 1.0:
        raise UsageError(f"--dropout {args.dropout}: must be in [0, 1)")
    if args.lr is not None and args.lr <= 0:
        raise UsageError(f"--lr {args.lr}: must be positive")
    if args.checkpoint_every < 0 or args.keep_checkpoints < 0 or args.log_every < 1:
        raise UsageError("--checkpoint-every and --keep-checkpoints must be >= 0, --log-every >= 1")
    return global_batch, global_batch // per_pass


def _vocab_size(args):
    if args.vocab_size:
        return args.vocab_size
    path = os.path.join(args.data, "vocab.txt")
    return vocab_size_of(path) if os.path.exists(path) else 30522


class Trainer:
    def __init__(self, args):
        self.args = args
        self.started = time.time()
        self.extract_only = bool(os.environ.get("NEURON_EXTRACT_GRAPHS_ONLY"))
        self.env = read_dist_env()
        self.is_main = self.env.is_main
        # ---- everything that can reject the input happens before anything is written ----
        self.global_batch, self.accumulation = _check_numbers(args, self.env.world_size)
        self.shards = open_shards(args.data, args.pattern)
        for flag, have in (("seq_len", self.shards.seq_len), ("max_pred", self.shards.max_pred)):
            want = getattr(args, flag)
            if want is not None and want != have:
                raise UsageError(f"--{flag.replace('_', '-')} {want}: the shards in {args.data} have "
                                 f"{have}; prepare data with {want} or drop the option")
        self.config = model_config(args.model, _vocab_size(args), args.dropout)
        if self.shards.seq_len > self.config.max_position_embeddings:
            raise UsageError(f"shards have sequence length {self.shards.seq_len}, above the model's "
                             f"{self.config.max_position_embeddings} positions")
        self.lr = args.lr if args.lr is not None else DEFAULT_LR.get(args.optimizer, 1e-4)
        self.resume_state, self.resume_path = None, None
        if not self.extract_only and not args.no_resume:
            self.resume_state, self.resume_path = checkpoint.load_newest(args.output, self.say)
            if self.resume_state is not None:
                checkpoint.check_compatible(self.resume_state, self.resume_path, self.config,
                                            args.optimizer)

    def say(self, message):
        if self.is_main:
            print(message, flush=True)

    # ------------------------------------------------------------------------------------------
    def setup(self):
        args = self.args
        self.device = select_device(args.device, args.dtype, self.env)
        self.device.init_process_group()
        self.device.manual_seed(args.seed)
        model = build_model(self.config, args.model_impl, args.dropout_rng)
        self.model = model.to(self.device.torch_device)
        named = list(self.model.named_parameters())
        self.params = [p for _, p in named]
        self.optimizer = build_optimizer(args.optimizer, named, self.lr, args.weight_decay)
        self.schedule = WarmupDecay(self.lr, warmup_steps(args.warmup, args.steps), args.steps,
                                    1.0 if args.schedule == "linear" else args.poly_power)
        self.reducer = GradientReducer(self.device, self.params)
        self.step, self.consumed = 0, 0
        if self.resume_state is not None:
            st = self.resume_state
            self.model.load_state_dict(st["model"])
            self.optimizer.load_state_dict(st["optimizer"])
            self.step, self.consumed = int(st["step"]), int(st["consumed_samples"])
            if "rng" in st:
                self.device.set_rng_state(st["rng"])
            self.say(f"resumed from {self.resume_path} (step {self.step}, "
                     f"{self.consumed} samples consumed)")
            self.resume_state = None  # free the host copy
        self.last_step = args.steps
        if self.extract_only:
            self.last_step = min(args.steps, self.step + EXTRACT_GRAPH_STEPS)
        self.loader = StepLoader(self.shards, args.seed, args.micro_batch, self.env.world_size,
                                 self.env.rank, self.accumulation, self.config.vocab_size)
        self.flops_per_seq = flops_per_sequence(self.config, self.shards.seq_len)
        if args.peak_tflops:
            self.peak_flops, self.peak_note = args.peak_tflops * 1e12, f"--peak-tflops {args.peak_tflops}"
        else:
            self.peak_flops, self.peak_note = self.device.peak_flops()
        self.metrics = self.tensorboard = None
        if self.is_main and not self.extract_only:
            os.makedirs(args.output, exist_ok=True)
            self.metrics = MetricsFile(os.path.join(args.output, "metrics.jsonl"), self.step)
            if not args.no_tensorboard:
                self.tensorboard = TensorBoard(os.path.join(args.output, "tensorboard"),
                                               self.step + 1, self.say)

    def parameters_record(self):
        a = self.args
        return {
            "model": a.model, "model_impl": a.model_impl, "model_config": self.config.to_dict(),
            "world_size": self.env.world_size, "micro_batch": a.micro_batch,
            "accumulation": self.accumulation, "global_batch": self.global_batch,
            "steps": a.steps, "optimizer": a.optimizer, "lr": self.lr,
            "warmup_steps": self.schedule.warmup, "schedule": a.schedule,
            "weight_decay": a.weight_decay, "grad_clip": a.grad_clip, "dropout": a.dropout,
            "dropout_rng": a.dropout_rng, "seed": a.seed, "dtype": self.device.dtype,
            "device": self.device.describe(), "seq_len": self.shards.seq_len,
            "max_pred": self.shards.max_pred, "dataset": os.path.abspath(a.data),
            "num_shards": len(self.shards.paths), "dataset_sequences": self.shards.total,
            "flops_per_sequence": self.flops_per_seq,
            "peak_flops_per_device": self.peak_flops, "peak_flops_note": self.peak_note,
            "torch_version": torch.__version__, "environment": captured_environment(),
        }

    # ------------------------------------------------------------------------------------------
    def train_step(self):
        """One optimizer step: accumulate over micro-steps, one all-reduce, clip, update."""
        dev = self.device.torch_device
        t0 = time.perf_counter()
        micro_batches, masked_tokens = self.loader.step(self.consumed)
        data_s = time.perf_counter() - t0
        self.model.train()
        acc_dtype = self.device.accumulate_dtype()
        mlm_total = torch.zeros((), dtype=acc_dtype, device=dev)
        nsp_total = torch.zeros((), dtype=acc_dtype, device=dev)
        for mb in micro_batches:
            mb = {k: v.to(dev, non_blocking=True) for k, v in mb.items()}
            with self.device.autocast():
                mlm_logits, nsp_logits = self.model(mb["input_ids"], mb["segment_ids"], mb["input_mask"],
                                                    mb["masked_lm_positions"], mb["sample_seeds"])
            mlm = F.cross_entropy(mlm_logits.float().reshape(-1, mlm_logits.shape[-1]),
                                  mb["masked_lm_labels"].reshape(-1), ignore_index=-1, reduction="sum")
            nsp = F.cross_entropy(nsp_logits.float(), mb["next_sentence_labels"], reduction="sum")
            # Normalised by the GLOBAL batch, so summing over micro-steps and processes gives the
            # global mean exactly, whatever the split.
            mlm = mlm / masked_tokens
            nsp = nsp / self.global_batch
            (mlm + nsp).backward()
            mlm_total += mlm.detach().to(acc_dtype)
            nsp_total += nsp.detach().to(acc_dtype)
        sums = self.reducer.reduce([mlm_total, nsp_total])
        grad_norm = None
        if self.args.grad_clip > 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(self.params, self.args.grad_clip)
        lr = self.schedule.apply(self.optimizer, self.step + 1)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        self.consumed += self.global_batch
        return sums, grad_norm, lr, data_s

    def record(self, step, sums, grad_norm, lr, data_s, first):
        now = time.perf_counter()
        mlm, nsp = (float(v) for v in sums.detach().cpu().tolist())
        step_s = now - self.last_time
        self.last_time = now
        row = {
            "step": step, "loss": mlm + nsp, "mlm_loss": mlm, "nsp_loss": nsp, "lr": lr,
            "seq_per_s": self.global_batch / step_s, "step_time_s": step_s, "data_time_s": data_s,
            "sequences": self.global_batch, "time_s": time.time() - self.started,
            "grad_norm": None if grad_norm is None else float(grad_norm),
        }
        if first:
            row["first_of_run"] = True
        for key, value in row.items():  # metrics.jsonl stays strict JSON: null, never NaN
            if isinstance(value, float) and not math.isfinite(value):
                row[key] = None
        self.step_times.append(step_s)
        if self.metrics is not None:
            self.metrics.write(row)
        if self.tensorboard is not None:
            self.tensorboard.write(row)
        if self.is_main and (step % self.args.log_every == 0 or step == self.last_step or first):
            recent = self.step_times[-20:]
            eta = (self.last_step - step) * sum(recent) / len(recent)
            if row["loss"] is None:
                self.say(f"step {step}/{self.last_step} | loss is not finite | lr {lr:.3e}")
            else:
                self.say(progress_line(row, self.last_step, eta))

    def save_checkpoint(self):
        if not self.is_main or self.extract_only:
            return
        state = {
            "step": self.step, "consumed_samples": self.consumed,
            "model": {k: v.detach().cpu() for k, v in self.model.state_dict().items()},
            "optimizer": _to_cpu(self.optimizer.state_dict()),
            "scheduler": self.schedule.state_dict(), "rng": _to_cpu(self.device.rng_state()),
            "model_config": self.config.to_dict(), "model_name": self.args.model,
            "optimizer_name": self.args.optimizer, "global_batch": self.global_batch,
            "seed": self.args.seed,
        }
        t0 = time.perf_counter()
        path = checkpoint.save(self.args.output, self.step, state, self.args.keep_checkpoints)
        took = time.perf_counter() - t0
        self.say(f"checkpoint {path} ({took:.2f} s)")

    # ------------------------------------------------------------------------------------------
    def start(self):
        self.setup()
        a = self.args
        self.say(f"trn_trainer: {a.model} ({sum(p.numel() for p in self.params):,} parameters, "
                 f"{a.model_impl}) on {self.device.describe()}, world {self.env.world_size}, "
                 f"micro-batch {a.micro_batch} x accumulation {self.accumulation} = global batch "
                 f"{self.global_batch}, {len(self.shards.paths)} shard(s) of seq {self.shards.seq_len}")
        if self.extract_only:
            self.say(f"NEURON_EXTRACT_GRAPHS_ONLY is set: running {self.last_step - self.step} steps to "
                     "produce every graph and writing nothing")
        self.step_times = []
        self.first = True
        self.last_time = time.perf_counter()

    def one_step(self):
        """Train, record and (when due) checkpoint one optimizer step."""
        sums, grad_norm, lr, data_s = self.train_step()
        self.device.after_step(self.record, self.step, sums, grad_norm, lr, data_s, self.first)
        self.device.step_end()  # XLA: cut and run the graph; the record closure follows
        self.first = False
        every = self.args.checkpoint_every
        if (every and self.step % every == 0) or self.step == self.last_step:
            self.save_checkpoint()
            self.last_time = time.perf_counter()  # step times leave checkpoint writes out

    def finish(self, completed):
        try:
            if completed:
                self.device.synchronize()
                self.device.barrier()
        finally:
            self.loader.close()
            if self.metrics is not None:
                self.metrics.close()
            if self.tensorboard is not None:
                self.tensorboard.close()
        summary = {}
        if completed and self.is_main and not self.extract_only:
            summary = self.write_outputs()
        self.device.shutdown()
        return summary

    def run(self):
        self.start()
        completed = False
        try:
            while self.step < self.last_step:
                self.one_step()
            completed = True
        finally:
            summary = self.finish(completed)
        return summary

    def write_outputs(self):
        out = self.args.output
        rows = read_rows(os.path.join(out, "metrics.jsonl"))
        summary = summarize(rows, self.flops_per_seq, self.env.world_size, self.peak_flops)
        wall = time.time() - self.started
        write_results(os.path.join(out, "results.json"), self.parameters_record(), summary,
                      [("Wall time", wall, "s"), ("Steps", len(rows), "")])
        if not self.args.no_plot:
            from .plot import plot_metrics

            plot_metrics(os.path.join(out, "metrics.jsonl"), os.path.join(out, "metrics.png"))
        mfu = "n/a" if summary.get("mfu") is None else f"{100 * summary['mfu']:.1f}%"
        avg = summary.get("average_throughput")
        self.say(f"done: final loss {summary.get('final_loss')}, average {avg if avg is None else round(avg, 1)} "
                 f"seq/s, MFU {mfu} ({self.peak_note}); results in {out}/results.json")
        summary["wall_time_s"] = wall
        return summary


def _to_cpu(obj):
    if torch.is_tensor(obj):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: _to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_cpu(v) for v in obj)
    return obj


def pretrain(args):
    trainer = Trainer(args)
    return trainer.run()

