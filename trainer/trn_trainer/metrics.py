"""Progress lines, metrics.jsonl and results.json (rank 0 writes them)."""

import datetime
import json
import math
import os
import statistics

from .outside_files import json_loads

ENV_PREFIXES = ("NEURON_", "XLA_", "FI_")
# Seconds of one micro-step, of the gradient all-reduce and of the optimizer in each step, where
# the device can time them (pretrain_step.PhaseClock); their medians calibrate trn-run's forecast.
PHASES = ("micro_step_s", "allreduce_s", "optimizer_s")


def read_rows(path):
    """The rows (JSON objects) of a metrics.jsonl, up to the first line that is not one."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, "rb") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    row = json_loads(line)
                except ValueError:
                    row = None
                if not isinstance(row, dict):
                    break  # a line cut short by a kill (or no row): everything after it is not trusted
                rows.append(row)
    return rows


class MetricsFile:
    """One JSON object per optimizer step. On resume, rows after the checkpoint are dropped."""

    def __init__(self, path, resume_step):
        self.path = path
        kept = [r for r in read_rows(path) if r.get("step", 0) <= resume_step] if resume_step else []
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            for row in kept:
                f.write(json.dumps(row) + "\n")
        os.replace(tmp, path)
        self.file = open(path, "a")

    def write(self, row):
        self.file.write(json.dumps(row) + "\n")
        self.file.flush()

    def close(self):
        self.file.close()


def format_duration(seconds):
    if seconds is None or not math.isfinite(seconds):
        return "?"
    return str(datetime.timedelta(seconds=int(round(seconds))))


def progress_line(row, total_steps, eta_s):
    return (f"step {row['step']}/{total_steps} | loss {row['loss']:.4f} "
            f"(mlm {row['mlm_loss']:.4f}, nsp {row['nsp_loss']:.4f}) | lr {row['lr']:.3e} | "
            f"{row['seq_per_s']:.1f} seq/s | data {100 * row['data_time_s'] / row['step_time_s']:.1f}% | "
            f"ETA {format_duration(eta_s)}")


def summarize(rows, flops_per_seq, world_size, peak_flops):
    """Final loss, time to train, average/peak throughput and MFU over all recorded steps.
    Throughput leaves out each run's first step (graph compile / warm-up) when others exist."""
    if not rows:
        return {}
    timed = [r for r in rows if not r.get("first_of_run")] or rows
    seqs = sum(r["sequences"] for r in timed)
    secs = sum(r["step_time_s"] for r in timed)
    average = seqs / secs if secs > 0 else None
    out = {
        "final_loss": rows[-1]["loss"],
        "step_time_median_s": statistics.median(r["step_time_s"] for r in timed),
        "time_to_train_s": sum(r["step_time_s"] for r in rows),
        "average_throughput": average,
        "peak_throughput": max(r["seq_per_s"] for r in timed),
        "mfu": None,
    }
    if average is not None and peak_flops:
        out["mfu"] = average * flops_per_seq / (peak_flops * world_size)
    phased = [r for r in timed if all(r.get(p) is not None for p in PHASES)]
    if phased:
        out["phase_medians"] = {p: statistics.median(r[p] for r in phased) for p in PHASES}
    return out


def metric(name, value, units, timestamp):
    return {"MetricName": name, "MeasuredValue": value, "Units": units, "Timestamp": timestamp}


def write_results(path, parameters, summary, extra_metrics=(), checkpoints=None):
    """The reference layout {"results": {"parameters", "metrics": [{MetricName, ...}]}} as valid
    JSON (null where a value is unknown), written to a temporary file and renamed. Beside it:
    step_time_median_s, the step phases' medians and, with `checkpoints`
    (CheckpointWriter.report()), what saves cost."""
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    metrics = [
        metric("Final loss", summary.get("final_loss"), "", now),
        metric("Time to train", summary.get("time_to_train_s"), "s", now),
        metric("Average throughput", summary.get("average_throughput"), "seq/s", now),
        metric("Peak throughput", summary.get("peak_throughput"), "seq/s", now),
        metric("MFU", None if summary.get("mfu") is None else 100.0 * summary["mfu"], "%", now),
    ]
    metrics.extend(metric(n, v, u, now) for n, v, u in extra_metrics)
    doc = {"schema_version": 1, "results": {"parameters": parameters, "metrics": metrics}}
    if summary.get("step_time_median_s") is not None:
        doc["results"]["step_time_median_s"] = summary["step_time_median_s"]
    if summary.get("phase_medians") is not None:
        doc["results"]["phase_medians"] = summary["phase_medians"]
    if checkpoints is not None:
        doc["results"]["checkpoint_stall_median_s"] = checkpoints["stall_median_s"]
        doc["results"]["checkpoints"] = checkpoints
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def captured_environment(env=None):
    env = os.environ if env is None else env
    return {k: env[k] for k in sorted(env) if k.startswith(ENV_PREFIXES)}
