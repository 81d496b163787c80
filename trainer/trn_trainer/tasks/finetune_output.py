"""What a finetune run leaves in --output besides metrics.jsonl (rank 0 writes it): model.pt,
the fine-tuned weights with their labels, and results.json in the layout pretrain's has."""

import os
import time

import torch

from ..checkpoint import files
from ..metrics import captured_environment, write_results

MODEL_FILE = "model.pt"


def save_model(args, state, labels, config):
    """model.pt: the fp32 state dict (Hugging Face BertForSequenceClassification names), its labels
    (label id i is labels[i]) and how it reads text; written to a temporary file and renamed.
    Returns its path."""
    saved = {"model": {k: v.detach().cpu() for k, v in state.items()}, "labels": labels,
             "model_config": config.to_dict(), "seq_len": args.seq_len, "lower_case": not args.cased,
             "format": "trn_trainer finetune 1"}
    path = os.path.join(args.output, MODEL_FILE)
    files.write_atomically(path, lambda f: torch.save(saved, f))
    return path


def write_report(run, rows, train_s):
    """results.json of `run` (finetune.Finetune) after its epochs' `rows`: the final accuracy,
    the epochs and the training samples/s (evaluation left out) among the metrics."""
    a, last, inputs = run.args, rows[-1], run.inputs
    parameters = {
        "command": "finetune", "model": a.model, "model_config": run.config.to_dict(),
        "labels": run.labels, "train": os.path.abspath(a.train), "eval": os.path.abspath(a.eval),
        "train_examples": len(inputs.train["labels"]), "eval_examples": len(inputs.eval["labels"]),
        "seq_len": a.seq_len, "world_size": run.env.world_size, "micro_batch": a.micro_batch,
        "accumulation": inputs.accumulation, "global_batch": inputs.global_batch, "epochs": a.epochs,
        "steps_per_epoch": run.steps_per_epoch, "lr": a.lr, "warmup_steps": run.schedule.warmup,
        "weight_decay": a.weight_decay, "grad_clip": a.grad_clip, "dropout": a.dropout, "seed": a.seed,
        "dtype": run.device.dtype, "device": run.device.describe(), "torch_version": torch.__version__,
        "init_from": os.path.abspath(a.init_from) if a.init_from else None,
        "truncated_examples": inputs.truncated, "environment": captured_environment()}
    samples = run.total_steps * inputs.global_batch
    per_epoch = [r["samples_per_s"] for r in rows if r["samples_per_s"] is not None]
    summary = {"final_loss": last["train_loss"], "time_to_train_s": train_s,
               "average_throughput": samples / train_s if samples and train_s > 0 else None,
               "peak_throughput": max(per_epoch, default=None), "mfu": None}
    extra = [("Final accuracy", last["eval_accuracy"], ""), ("Final eval loss", last["eval_loss"], ""),
             ("Epochs", a.epochs, ""), ("Steps", run.total_steps, ""),
             ("Wall time", time.time() - run.started, "s")]
    write_results(os.path.join(a.output, "results.json"), parameters, summary, extra)
