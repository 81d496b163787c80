"""BERT fine-tuning for sequence classification (docs/finetune.md): `python3 -m trn_trainer
finetune --train FILE --eval FILE --vocab vocab.txt --output DIR [--init-from ...]`.

World-size invariant as pre-training is: epoch e's sample order is a permutation fixed by the
seed alone (data.GlobalOrder over the training examples), optimizer step s of the epoch takes
its positions [s G, (s + 1) G), micro-step m of rank r takes chunk m W + r of them, each loss is
divided by the global batch G and one all-reduce sums gradients and losses (parallel/reduction.py);
dropout masks are drawn per sample (models/dropout.py). The last N mod G examples of each epoch's
order are left out of that epoch. Evaluation after every epoch covers the whole eval file, its
sums gathered over the ranks. Rank 0 writes metrics.jsonl (one row per epoch), results.json
and model.pt (the fine-tuned state dict with its labels).
"""

import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from ..data.sampling import GlobalOrder
from ..devices.choice import select_device
from ..environment import compile_run_variable, extracting_graphs_only, read_dist_env
from ..errors import DivergedError
from ..heartbeat import Heartbeat, failure_text
from ..metrics import MetricsFile
from ..models.bert_classifier import BertForSequenceClassification
from ..models.dropout import sample_seeds
from ..parallel.reduction import GradientReducer
from ..tensorboard_events import run_events
from ..training.master_weights import TrainedWeights
from ..training.optim import WarmupDecay, build_optimizer, warmup_steps
from .finetune_init import load_weights
from .finetune_output import save_model, write_report
from .finetune_setup import check_inputs


# Under trn-run's compile phase: two optimizer steps give the first step's graphs and the steady
# state's (the optimizer state exists from the second on).
EXTRACT_STEPS = 2
# A finetune run's TensorBoard scalars: its metrics.jsonl row of each epoch, at the epoch's last step.
FINETUNE_SCALARS = ("train_loss", "eval_loss", "eval_accuracy", "lr", "samples_per_s")


class Finetune:
    def __init__(self, args, env):
        self.args, self.env = args, env
        self.started = time.time()
        inputs = self.inputs = check_inputs(args, env.world_size, env.local_rank, self.say)
        self.global_batch, self.accumulation = inputs.global_batch, inputs.accumulation
        self.train, self.eval = inputs.train, inputs.eval
        self.labels, self.config = inputs.labels, inputs.config
        n = len(self.train["labels"])
        self.steps_per_epoch = n // self.global_batch
        self.total_steps = args.epochs * self.steps_per_epoch
        self.device = select_device(args.device, args.dtype, env)
        self.device.init_process_group()
        self.device.manual_seed(args.seed)  # the same head (and random encoder) on every rank
        model = BertForSequenceClassification(self.config, len(self.labels))
        if inputs.source:
            fresh = load_weights(model, inputs.source.weights, args.init_from)
            self.say(f"initialized the encoder from {inputs.source.described}"
                     f"{'; the pooler is new' if fresh else ''}; the classifier is new (--seed {args.seed})")
        self.model = self.device.prepare_model(model)
        self.weights = TrainedWeights(self.model)
        self.params = self.weights.params
        self.optimizer = build_optimizer("adamw", self.weights.stepped, args.lr, args.weight_decay)
        self.schedule = WarmupDecay(args.lr, warmup_steps(args.warmup, self.total_steps), self.total_steps)
        self.reducer = GradientReducer(self.device, self.params)
        self.order = GlobalOrder([n], args.seed)
        c, size = self.config, f" {args.model}" if args.model else ""
        self.say(f"trn_trainer: finetune BERT{size} ({c.num_hidden_layers} layers, hidden {c.hidden_size}, "
                 f"{sum(p.numel() for p in self.params):,} parameters) on {self.device.describe()}, world "
                 f"{env.world_size}, micro-batch {args.micro_batch} x accumulation {self.accumulation} = "
                 f"global batch {self.global_batch}; {n} training examples ({self.steps_per_epoch} steps per "
                 f"epoch, {n % self.global_batch} left out of each), {len(self.eval['labels'])} eval "
                 f"examples, {len(self.labels)} labels, {sum(inputs.truncated.values())} example(s) cut "
                 f"to --seq-len {args.seq_len}")

    def say(self, message):
        if self.env.is_main:
            print(message, flush=True)

    def micro_batches(self, epoch, step):
        """This rank's micro-batches of optimizer step `step` (0-based) of epoch `epoch`."""
        n, g, b = len(self.train["labels"]), self.global_batch, self.args.micro_batch
        positions = epoch * n + step * g + np.arange(g, dtype=np.int64)
        _, rows = self.order.locate(positions)
        out = []
        for m in range(self.accumulation):
            chunk = m * self.env.world_size + self.env.rank
            sl = slice(chunk * b, (chunk + 1) * b)
            picked = torch.from_numpy(rows[sl])
            batch = {k: v[picked] for k, v in self.train.items()}
            batch["sample_seeds"] = sample_seeds(self.args.seed, torch.from_numpy(positions[sl].copy()))
            out.append(batch)
        return out

    def train_step(self, epoch, step, heartbeat):
        """One optimizer step; the global batch's mean loss."""
        heartbeat.step_started()
        self.model.train()
        total = None
        for mb in self.device.micro_batches(self.micro_batches(epoch, step)):
            with self.device.autocast():
                logits = self.model(mb["input_ids"], mb["segment_ids"], mb["input_mask"], mb["sample_seeds"])
            loss = F.cross_entropy(logits.float(), mb["labels"], reduction="sum") / self.global_batch
            loss.backward()
            part = loss.detach().to(self.device.accumulate_dtype())
            total = part if total is None else total + part
        heartbeat.all_reduce_started()
        loss = float(self.reducer.reduce([total])[0])  # the same on every rank: all stop together
        number = epoch * self.steps_per_epoch + step + 1
        lr = self.schedule.apply(self.optimizer, number)
        if not math.isfinite(loss):
            raise DivergedError(f"epoch {epoch + 1} step {step + 1}: the loss is {loss}, not finite, at "
                                f"learning rate {lr:.3g}: training diverged; lower --lr (or lengthen "
                                "--warmup) and run again")
        if self.args.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.params, self.args.grad_clip)
        self.weights.optimizer_step(self.optimizer)
        self.optimizer.zero_grad(set_to_none=True)
        self.device.step_end()
        heartbeat.step_done(number)
        return loss, lr

    @torch.no_grad()
    def evaluate(self):
        """(mean loss, accuracy) over the whole eval file: rank r takes examples r, r + W, ..."""
        self.model.eval()
        rows = torch.arange(self.env.rank, len(self.eval["labels"]), self.env.world_size)
        batches = [{k: v[part] for k, v in self.eval.items()} for part in rows.split(self.args.micro_batch)]
        sums = torch.zeros(3, dtype=self.device.accumulate_dtype(), device=self.device.torch_device)
        for mb in self.device.micro_batches(batches):
            with self.device.autocast():
                logits = self.model(mb["input_ids"], mb["segment_ids"], mb["input_mask"]).float()
            parts = (F.cross_entropy(logits, mb["labels"], reduction="sum"),
                     (logits.argmax(-1) == mb["labels"]).sum(), torch.ones_like(mb["labels"]).sum())
            sums += torch.stack([part.to(sums.dtype) for part in parts])
        if self.env.distributed:
            self.device.all_reduce_sum_(sums)
        loss, correct, count = sums.cpu().tolist()
        return loss / count, correct / count

    def run(self, heartbeat):
        args, extract = self.args, extracting_graphs_only()
        main = self.env.is_main and not extract
        metrics = MetricsFile(os.path.join(args.output, "metrics.jsonl"), 0) if main else None
        events = run_events(args, 0) if main else None
        rows, train_s = [], 0.0
        heartbeat.step_done(0)
        epochs, steps = max(args.epochs, 1), self.steps_per_epoch if args.epochs else 0
        if extract:  # trn-run's compile phase: a step's graphs, the evaluation's, and nothing written
            epochs, steps = 1, min(steps, EXTRACT_STEPS)
            self.say(f"{compile_run_variable()} is set: {steps} training step(s) and one evaluation to "
                     "produce every graph, writing nothing")
        for epoch in range(epochs):  # --epochs 0: the starting model's evaluation
            began, losses, lr = time.perf_counter(), [], None
            for step in range(steps):
                loss, lr = self.train_step(epoch, step, heartbeat)
                losses.append(loss)
                if (step + 1) % args.log_every == 0:
                    self.say(f"epoch {epoch + 1} step {step + 1}/{self.steps_per_epoch} | loss {loss:.4f} | "
                             f"lr {lr:.3e}")
            seconds = time.perf_counter() - began
            train_s += seconds
            eval_loss, accuracy = self.evaluate()
            row = {"epoch": epoch + 1 if args.epochs else 0,
                   "step": epoch * self.steps_per_epoch + len(losses),
                   "train_loss": sum(losses) / len(losses) if losses else None, "eval_loss": eval_loss,
                   "eval_accuracy": accuracy, "lr": lr,
                   "samples_per_s": len(losses) * self.global_batch / seconds if losses else None,
                   "epoch_time_s": seconds, "eval_time_s": time.perf_counter() - began - seconds,
                   "time_s": time.time() - self.started}
            rows.append(row)
            if main:
                metrics.write(row)
            if events is not None:
                events.step(row["step"], {key: row[key] for key in FINETUNE_SCALARS})
            self.say(f"epoch {row['epoch']}/{args.epochs} | train loss "
                     f"{'-' if row['train_loss'] is None else format(row['train_loss'], '.4f')} | eval loss "
                     f"{eval_loss:.4f} | accuracy {accuracy:.4f}")
        if main:
            metrics.close()
            if events is not None:
                events.close()
            model_file = save_model(args, self.weights.state(), self.labels, self.config)
            write_report(self, rows, train_s)
            last = rows[-1]
            self.say(f"done: accuracy {last['eval_accuracy']:.4f} (eval loss {last['eval_loss']:.4f}) after "
                     f"{args.epochs} epoch(s); model in {model_file}, results in "
                     f"{os.path.join(args.output, 'results.json')}")
        self.device.barrier()
        self.device.shutdown()
        return rows


def finetune(args):
    """Fine-tune; the rank's heartbeat says how it ended (trn-run's watchdog reads it)."""
    env = read_dist_env()
    heartbeat = Heartbeat(env.rank)
    try:
        finetuner = Finetune(args, env)
        if env.is_main and not extracting_graphs_only():
            os.makedirs(args.output, exist_ok=True)
        rows = finetuner.run(heartbeat)
    except BaseException as e:
        heartbeat.stopped(failure_text(e))
        raise
    heartbeat.stopped()
    return rows
