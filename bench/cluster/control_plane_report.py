"""The control-plane bench's table, CSV, PNG and 1,000-node model (bench/cluster/control_plane.sh).

Reads OUT/forward-N.json and OUT/forward-N-times/rank*.json (the ranks' own clocks) and
OUT/recovery-N.json for each count N, and writes OUT/control_plane.csv, OUT/control_plane.png
and OUT/control_plane.md (the table and the model), printing the last.

The model: each phase's seconds fitted by least squares to a + c x log2 N (a tree, or one srun
fan-out whose per-node work runs on each node at once, as on real nodes) and to a + b x N (the
same work done one node after another, as the local cluster's nodes must on the machine's few
shared cores); both are given at 1,000 nodes. A total without the health gate (skipped above
TRN_BENCH_GATE_NODES) is n/a; the row without the gate has every count.
"""

import csv
import glob
import json
import math
import os
import sys

FORWARD = [("node_facts", "node facts"), ("health", "health gate"), ("plan", "plan"),
           ("cache_pull", "cache pull"), ("step_launch", "step launch (last rank started)"),
           ("first_heartbeat", "first heartbeat (last rank)"),
           ("before_first_step", "total before the first step"),
           ("before_first_step_ungated", "total before the first step, less the health gate")]
RECOVERY = [("detection", "detection (the kill to the watchdog's finding)"), ("probe", "probe"),
            ("drain", "drain"),
            ("restart", "restart (finding to the new step)"),
            ("restart_first_step", "restarted step to its first step")]


def forward_phases(out, n):
    with open(os.path.join(out, f"forward-{n}.json")) as f:
        phases = json.load(f)["phases"]
    ranks = []
    for path in glob.glob(os.path.join(out, f"forward-{n}-times", "rank*.json")):
        with open(path) as f:
            ranks.append(json.load(f))
    if len(ranks) != n:
        raise SystemExit(f"{n} nodes: {len(ranks)} ranks wrote their times, expected {n}")
    step_start = phases["train_step_started_unix"][0]
    health = phases.get("health", {}).get("seconds", float("nan"))  # nan: the gate was skipped
    launch = max(r["started"] for r in ranks) - step_start
    beat = max(r["first_beat"] for r in ranks) - step_start
    return {
        "node_facts": phases["node_facts_seconds"],
        "health": health,
        "plan": phases["plan_seconds"] - phases["node_facts_seconds"] - (0 if math.isnan(health) else health),
        "cache_pull": phases.get("cache_pull", {}).get("seconds", 0.0),
        "step_launch": launch,
        "first_heartbeat": beat,
        # the total includes the gate: n/a where it was skipped
        "before_first_step": float("nan") if math.isnan(health) else phases["before_train_seconds"] + beat,
        "before_first_step_ungated":
            phases["before_train_seconds"] + beat - (0 if math.isnan(health) else health),
    }


def recovery_phases(out, n):
    with open(os.path.join(out, f"recovery-{n}.json")) as f:
        phases = json.load(f)["phases"]
    records = phases.get("recoveries", [])
    if not records or not records[0].get("replaced"):
        raise SystemExit(f"{n} nodes: the recovery run swapped in no spare: {records}")
    r = records[0]
    with open(os.path.join(out, f"recovery-{n}.killed_unix")) as f:
        killed = float(f.read())
    found = phases["train_step_started_unix"][0] + r["detected_after_s"]
    return {"detection": found - killed, "probe": r["find_s"], "drain": r["drain_s"],
            "restart": r["restart_s"], "restart_first_step": r.get("first_step_s", float("nan"))}


def fit(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    a = my - b * mx
    return a, b


def model(counts, values, at=1000):
    counts, values = zip(*[(n, v) for n, v in zip(counts, values) if not math.isnan(v)])
    lin = fit(counts, values)
    log = fit([math.log2(n) for n in counts], values)
    return {"linear": lin[0] + lin[1] * at, "log": log[0] + log[1] * math.log2(at)}


def main():
    out, counts = sys.argv[1], [int(n) for n in sys.argv[2:]]
    forward = {n: forward_phases(out, n) for n in counts}
    recovery = {n: recovery_phases(out, n) for n in counts}
    with open(os.path.join(out, "control_plane.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["nodes"] + [k for k, _ in FORWARD] + [k for k, _ in RECOVERY])
        for n in counts:
            writer.writerow([n] + [f"{forward[n][k]:.3f}" for k, _ in FORWARD]
                            + [f"{recovery[n][k]:.3f}" for k, _ in RECOVERY])
    lines = ["| phase (s) | " + " | ".join(str(n) for n in counts)
             + " | growth | 1,000 nodes: a + c log2 N | 1,000 nodes: a + b N |",
             "|---|" + "---|" * len(counts) + "---|---|---|"]
    for table, names in ((forward, FORWARD), (recovery, RECOVERY)):
        for key, label in names:
            values = [table[n][key] for n in counts]
            m = model(counts, values)
            measured = [v for v in values if not math.isnan(v)]
            growth = measured[-1] / measured[0] if measured[0] > 0 else float("nan")
            lines.append(f"| {label} | " + " | ".join("n/a" if math.isnan(v) else f"{v:.2f}" for v in values)
                         + f" | {growth:.1f}x | {m['log']:.2f} | {m['linear']:.2f} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "control_plane.md"), "w") as f:
        f.write(text)
    print(text, end="")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for key, label in FORWARD:
        left.plot(counts, [forward[n][key] for n in counts], marker="o", label=label,
                  linewidth=2.5 if key == "before_first_step" else 1.2)
    left.axhline(2.0, color="grey", linestyle=":", label="goal: 2 s before the first step")
    for key, label in RECOVERY:
        right.plot(counts, [recovery[n][key] for n in counts], marker="o", label=label)
    for axis, title in ((left, "before the first step"), (right, "recovery from a lost node")):
        axis.set_xscale("log", base=2)
        axis.set_xticks(counts, [str(n) for n in counts])
        axis.set_xlabel("nodes (local cluster, one slurmd and namespace each)")
        axis.set_ylabel("seconds")
        axis.set_title(title)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "control_plane.png"), dpi=110)


if __name__ == "__main__":
    main()
