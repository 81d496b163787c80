#!/usr/bin/env bash
# jobscripts/scaling_sweep.sh + collect_sweep.py over 1, 2, 3 and 4 nodes (the local cluster's
# size; on a real cluster the default is 1 2 4 8 16): one trn-run job per node count, then the
# collector job writes one table and plot. Strong scaling of bert_tiny (global batch 64, micro-
# batch 8) divides on 1, 2 and 4 nodes; 3 nodes is infeasible and shows as a failed row with
# trn-run's message.
source "$(dirname "$0")/../lib.sh"
make_scratch
nodes=${TRN_SWEEP_NODES:-1 2 3 4}

out=$(slurm_with_tools "$TRN_SOURCE_DIR/jobscripts/scaling_sweep.sh" --nodes "$nodes" \
  --output-root "$scratch/runs" --sbatch-arg --chdir="$scratch" \
  bert_tiny --data "$(test_data_dir)" --steps 4)
sweep=$(sed -n 's/^sweep //p' <<<"$out")
collect=$(sed -n 's/^collect //p' <<<"$out")
[[ -d $sweep && -n $collect ]] || fail "scaling_sweep printed no sweep directory or collector job: $out"
expect_eq "$(grep -c '^nodes ' <<<"$out")" "$(wc -w <<<"$nodes")" "jobs submitted"

# Some run fails (3 nodes), so the collector reports it and exits 1.
state=$(job_end_state "$collect")
expect_eq "$state" FAILED "collector job state (a run failed)"
field() { slurm scontrol show job -o "$1" | grep -o " $2=[^ ]*" | cut -d= -f2-; }
for job in $(grep '^nodes ' <<<"$out" | cut -d' ' -f4); do
  [[ $(date -d "$(field "$collect" StartTime)" +%s) -ge $(date -d "$(field "$job" EndTime)" +%s) ]] ||
    fail "the collector started before job $job ended"
done
for f in scaling.md scaling.json scaling.png; do
  [[ -s $sweep/$f ]] || { cat "$sweep"/logs/collect-*.out; fail "the collector wrote no $f"; }
done
cat "$sweep/scaling.md"
"$python" - "$sweep" <<'PY'
import json, struct, sys
sweep = sys.argv[1]
rows = {r["nodes"]: r for r in json.load(open(f"{sweep}/scaling.json"))["runs"]}
assert sorted(rows) == [1, 2, 3, 4], sorted(rows)
table = open(f"{sweep}/scaling.md").read().splitlines()
for n, accum in ((1, 8), (2, 4), (4, 2)):
    r = rows[n]
    assert r["ok"], r
    results = json.load(open(f"{r['run_dir']}/results.json"))
    measured = next(m["MeasuredValue"] for m in results["results"]["metrics"]
                    if m["MetricName"] == "Average throughput")
    assert abs(r["throughput"] - measured) < 1e-9, (n, r["throughput"], measured)
    assert r["grad_accum"] == accum and r["global_batch"] == 64, r
    line = next(l for l in table if l.startswith(f"| {n} |"))
    assert f"| {measured:.1f} |" in line, line
    assert abs(r["efficiency"] - 100 * (measured / n) / rows[1]["throughput"]) < 1e-6, r
assert abs(rows[1]["efficiency"] - 100.0) < 1e-9, rows[1]  # 100 * (T / 1) / T, in floating point
assert not rows[3]["ok"] and rows[3]["reason"].startswith("trn-run:"), rows[3]
assert "| 3 | - | - | - | failed |" in "\n".join(table)
assert any(l.startswith("- 3 nodes") and "trn-run:" in l for l in table), table
png = open(f"{sweep}/scaling.png", "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", png[16:24])
assert (width, height) == (1100, 420), (width, height)
print(f"ok: table, json and a {width}x{height} plot; 3 nodes: {rows[3]['reason']}")
PY

# A mistyped profile is reported before anything is queued.
before=$(slurm squeue -h -o %i | wc -l)
status=0
err=$(slurm_with_tools "$TRN_SOURCE_DIR/jobscripts/scaling_sweep.sh" --nodes "1 2" \
  --output-root "$scratch/runs" bert_tinny --data "$(test_data_dir)" 2>&1) || status=$?
expect_eq "$status" 2 "exit status of a sweep with a mistyped profile"
grep -q "nothing submitted: .*unknown profile 'bert_tinny'" <<<"$err" || fail "mistyped profile in a sweep: $err"
expect_eq "$(slurm squeue -h -o %i | wc -l)" "$before" "jobs queued by a sweep with a mistyped profile"
echo "ok: a mistyped profile queues nothing"
