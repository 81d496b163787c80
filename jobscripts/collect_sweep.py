#!/usr/bin/env python3
"""Collects a scaling sweep's runs into one table and plot.

    collect_sweep.py SWEEP_DIR [--output PREFIX]

SWEEP_DIR is what scaling_sweep.sh made: sweep.tsv names each node count's job, run directory
and job output. (Without sweep.tsv, every subdirectory holding a plan.json is a run.) Each run's
results.json gives its throughput ("Average throughput", sequences/s, the first step of each
process left out), final loss and time to train; its plan gives nodes, workers and batch sizes.

Writes PREFIX.md (a markdown table), PREFIX.json and PREFIX.png (throughput and scaling
efficiency against the node count); PREFIX defaults to SWEEP_DIR/scaling. Speed-up and
efficiency are relative to the smallest node count that has a result:
efficiency(N) = (throughput(N) / N) / (throughput(N0) / N0).

Exit status: 0 every run has results; 1 some run has none (it is in the table with the reason);
2 nothing to collect or bad arguments.
"""

import argparse
import csv
import json
import os
import sys


def metric(results, name):
    for entry in results.get("results", {}).get("metrics", []):
        if entry.get("MetricName") == name:
            return entry.get("MeasuredValue")
    return None


def failure_reason(output_file):
    """The last trn-run message or error line of a job's output, for the table."""
    if not output_file or not os.path.isfile(output_file):
        return "no results.json and no job output (still pending, or cancelled?)"
    lines = open(output_file, errors="replace").read().splitlines()
    for line in reversed(lines):
        text = line.strip()
        if text.startswith(("trn-run:", "trn-compile:", "slurmstepd:", "srun:", "error:")):
            return text
    return "no results.json; see " + output_file


def expected_runs(sweep):
    manifest = os.path.join(sweep, "sweep.tsv")
    if os.path.isfile(manifest):
        with open(manifest, newline="") as f:
            return [{"nodes": int(row["nodes"]), "job": row["job"], "run_dir": row["run_dir"],
                     "output": row["output"]} for row in csv.DictReader(f, delimiter="\t")]
    runs = []
    for name in sorted(os.listdir(sweep)):
        plan_file = os.path.join(sweep, name, "plan.json")
        if os.path.isfile(plan_file):
            plan = json.load(open(plan_file))
            runs.append({"nodes": int(plan["nodes"]), "job": str(plan.get("job_id") or ""),
                         "run_dir": os.path.join(sweep, name), "output": ""})
    return runs


def read_run(run):
    row = dict(run, ok=False)
    results_file = os.path.join(run["run_dir"], "results.json")
    if not os.path.isfile(results_file):
        row["reason"] = failure_reason(run["output"])
        return row
    results = json.load(open(results_file))
    plan = results.get("plan", {})
    throughput = metric(results, "Average throughput")
    if throughput is None:
        row["reason"] = f"{results_file} has no Average throughput"
        return row
    row.update(ok=True, throughput=float(throughput), peak=metric(results, "Peak throughput"),
               final_loss=metric(results, "Final loss"), time_to_train=metric(results, "Time to train"),
               mfu=metric(results, "MFU"), world_size=plan.get("world_size"),
               global_batch=plan.get("global_batch"), grad_accum=plan.get("grad_accum"),
               micro_batch=plan.get("micro_batch"), scaling=plan.get("scaling"),
               profile=plan.get("profile"))
    return row


def add_efficiency(rows):
    done = [r for r in rows if r["ok"]]
    if not done:
        return
    base = min(done, key=lambda r: r["nodes"])
    per_node = base["throughput"] / base["nodes"]
    for r in done:
        r["speedup"] = r["throughput"] / base["throughput"]
        r["efficiency"] = 100.0 * (r["throughput"] / r["nodes"]) / per_node if per_node > 0 else None


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def markdown(rows, sweep):
    done = [r for r in rows if r["ok"]]
    profile = next((r["profile"] for r in done if r.get("profile")), os.path.basename(sweep))
    scaling = next((r["scaling"] for r in done if r.get("scaling")), "?")
    lines = [f"# Scaling: {profile} ({scaling} scaling)", "",
             "| Nodes | Workers | Global batch | Accumulation | Throughput (seq/s) | Speed-up "
             "| Efficiency | Final loss | Time to train (s) | Job |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    notes = []
    for r in rows:
        if r["ok"]:
            lines.append(f"| {r['nodes']} | {fmt(r['world_size'], 'd')} | {fmt(r['global_batch'], 'd')} "
                         f"| {fmt(r['grad_accum'], 'd')} | {r['throughput']:.1f} | {r['speedup']:.2f}x "
                         f"| {fmt(r['efficiency'], '.1f')}% | {fmt(r['final_loss'], '.4f')} "
                         f"| {fmt(r['time_to_train'], '.1f')} | {r['job']} |")
        else:
            lines.append(f"| {r['nodes']} | - | - | - | failed | - | - | - | - | {r['job']} |")
            notes.append(f"- {r['nodes']} nodes (job {r['job']}): {r['reason']}")
    if done:
        base = min(done, key=lambda r: r["nodes"])
        lines += ["", f"Speed-up and efficiency relative to {base['nodes']} node(s); throughput is the "
                  "trainer's average (each process's first step left out)."]
    if notes:
        lines += ["", "Runs without results:", ""] + notes
    return "\n".join(lines) + "\n"


def plot(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = sorted((r for r in rows if r["ok"]), key=lambda r: r["nodes"])
    nodes = [r["nodes"] for r in done]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax1.plot(nodes, [r["throughput"] for r in done], "o-", label="measured")
    base = done[0]
    ideal = [base["throughput"] * n / base["nodes"] for n in nodes]
    ax1.plot(nodes, ideal, "--", color="gray", label="linear")
    ax1.set_xlabel("nodes")
    ax1.set_ylabel("throughput (sequences/s)")
    ax1.set_title(title)
    ax1.legend()
    ax2.plot(nodes, [r["efficiency"] for r in done], "o-", color="tab:green")
    ax2.axhline(100, linestyle="--", color="gray")
    ax2.set_xlabel("nodes")
    ax2.set_ylabel(f"scaling efficiency vs {base['nodes']} node(s) (%)")
    ax2.set_ylim(0, max(110, max(r["efficiency"] for r in done) * 1.1))
    for ax in (ax1, ax2):
        if len(nodes) > 1 and nodes[-1] / nodes[0] >= 4:
            ax.set_xscale("log", base=2)
        ax.set_xticks(nodes)
        ax.set_xticklabels([str(n) for n in nodes])
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="the sweep directory scaling_sweep.sh made")
    parser.add_argument("--output", help="prefix of the .md, .json and .png (default SWEEP/scaling)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.sweep):
        print(f"collect_sweep: {args.sweep} is not a directory", file=sys.stderr)
        return 2
    runs = expected_runs(args.sweep)
    if not runs:
        print(f"collect_sweep: {args.sweep} has no sweep.tsv and no run directories", file=sys.stderr)
        return 2
    rows = sorted((read_run(r) for r in runs), key=lambda r: (r["nodes"], r["job"]))
    add_efficiency(rows)
    prefix = args.output or os.path.join(args.sweep, "scaling")
    table = markdown(rows, args.sweep)
    with open(prefix + ".md", "w") as f:
        f.write(table)
    with open(prefix + ".json", "w") as f:
        json.dump({"sweep": os.path.abspath(args.sweep), "runs": rows}, f, indent=2)
        f.write("\n")
    written = [prefix + ".md", prefix + ".json"]
    if any(r["ok"] for r in rows):
        plot(rows, prefix + ".png", table.splitlines()[0].lstrip("# "))
        written.append(prefix + ".png")
    print(table, end="")
    print("collect_sweep: wrote " + ", ".join(written))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
