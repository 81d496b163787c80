"""The end-of-run report on rank 0: results.json (parameters and summary), metrics.png and the
"done" line."""

import os
import time

import torch

from ..metrics import captured_environment, read_rows, summarize, write_results


def parameters_record(args, inputs, run, world_size, flops_per_seq, peak_flops, peak_note):
    """What results.json records about how the run was set up."""
    a = args
    return {
        "model": a.model, "model_impl": a.model_impl, "model_config": inputs.config.to_dict(),
        "parameter_count": run.parameter_count(),
        "world_size": world_size, "micro_batch": a.micro_batch,
        "accumulation": inputs.accumulation, "global_batch": inputs.global_batch,
        "steps": a.steps, "optimizer": a.optimizer, "lr": inputs.lr,
        "warmup_steps": run.schedule.warmup, "schedule": a.schedule,
        "weight_decay": a.weight_decay, "grad_clip": a.grad_clip, "dropout": a.dropout,
        "dropout_rng": a.dropout_rng, "seed": a.seed, "dtype": run.device.dtype,
        "device": run.describe(), "seq_len": inputs.shards.seq_len,
        "max_pred": inputs.shards.max_pred, "dataset": os.path.abspath(a.data),
        "num_shards": len(inputs.shards.paths), "dataset_sequences": inputs.shards.total,
        "flops_per_sequence": flops_per_seq,
        "peak_flops_per_device": peak_flops, "peak_flops_note": peak_note,
        "torch_version": torch.__version__, "environment": captured_environment(),
    }


def write_report(output, parameters, started, no_plot, say, checkpoints=None):
    """Summarise output/metrics.jsonl into results.json (and metrics.png); returns the summary.
    `checkpoints`: CheckpointWriter.report(), beside the median step time."""
    rows = read_rows(os.path.join(output, "metrics.jsonl"))
    summary = summarize(rows, parameters["flops_per_sequence"], parameters["world_size"],
                        parameters["peak_flops_per_device"])
    wall = time.time() - started
    extra = [("Wall time", wall, "s"), ("Steps", len(rows), "")]
    if checkpoints is not None:
        extra += [("Checkpoint stall median", checkpoints["stall_median_s"], "s"),
                  ("Checkpoints skipped in flight", checkpoints["skipped_in_flight"], "")]
    write_results(os.path.join(output, "results.json"), parameters, summary, extra,
                  checkpoints=checkpoints)
    if not no_plot:
        from .plot import plot_metrics

        plot_metrics(os.path.join(output, "metrics.jsonl"), os.path.join(output, "metrics.png"))
    mfu = "n/a" if summary.get("mfu") is None else f"{100 * summary['mfu']:.1f}%"
    avg = summary.get("average_throughput")
    say(f"done: final loss {summary.get('final_loss')}, average {avg if avg is None else round(avg, 1)} "
        f"seq/s, MFU {mfu} ({parameters['peak_flops_note']}); results in {output}/results.json")
    summary["wall_time_s"] = wall
    return summary
