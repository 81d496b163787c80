#!/usr/bin/env bash
# trn-run's forecast from the command line: the line heading every plan, --sweep as text, JSON
# and CSV, the --png plot, and bad input (exit 2, one line naming the option and the fix).
# usage: trn_run_sweep_cli_test.sh TRN_RUN
set -euo pipefail
trn_run=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# The project's Python environment, as the training environment, draws the --png plot; no Slurm
# here.
TRN_TRAINING_VENV=$("$(dirname "$0")/../../../scripts/python" -c 'import sys; print(sys.prefix)')
export TRN_TRAINING_VENV
run() { env -u SLURM_JOB_ID "$trn_run" "$@" 2>"$out/stderr"; }
trn1=(bert_pretrain --plan --nodes 1 --instance-type trn1.32xlarge)

first=$(run "${trn1[@]}" | head -n 1) || fail "plan: $(cat "$out/stderr")"
[[ $first == "forecast: 3,826.6 seq/s, 4.282 s per step; 28,125 steps in 1d 9:27:00; \$719 on demand, \$421 reserved (1 node x trn1.32xlarge)" ]] ||
  fail "the plan's first line: $first"
seq_per_s=$(run "${trn1[@]}" --json | /usr/bin/python3 -c 'import json,sys; print(round(json.load(sys.stdin)["forecast"]["step"]["seq_per_s"], 1))')
[[ $seq_per_s == 3826.6 ]] || fail "plan.json forecast: $seq_per_s"
first=$(run bert_tiny --plan --nodes 2 | head -n 1)
[[ $first == "forecast: none (CPU nodes have no published calibration: pass --calibrate RUN_DIR (a finished run on these nodes))" ]] ||
  fail "bert_tiny's first line: $first"

text=$(run "${trn1[@]}" --sweep 1,2,3,16) || fail "sweep: $(cat "$out/stderr")"
for want in "forecast for profile bert_pretrain: 28125 steps" "calibrated from Neuron's published trn1 results" \
  "the bundled profiles' shapes, " "eff: seq/s per node relative to the 1-node row" "     3  infeasible: strong scaling needs global_batch 16384"; do
  grep -qF -- "$want" <<<"$text" || fail "the sweep lacks '$want': $text"
done
[[ $(grep -cE '^ +(1|2|16) +[0-9]+ ' <<<"$text") == 3 ]] || fail "rows for 1, 2 and 16 nodes: $text"
rows=$(run "${trn1[@]}" --sweep 1-64 --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["rows"]), sum("step" in r for r in d["rows"]))')
[[ $rows == "64 6" ]] || fail "a 1-64 sweep has 64 rows, 6 that plan (1 2 4 8 16 32): $rows"
csv=$(run llama2_7b_nxd --plan --nodes 16 --sweep 16,32,64 --csv)
[[ $(head -n 1 <<<"$csv") == nodes,workers,tensor_parallel,pipeline_parallel,*,extrapolated,infeasible ]] || fail "csv header: $csv"
[[ $(sed -n 2p <<<"$csv") == 16,512,8,1,64,16,1024,*,false, ]] || fail "csv row: $csv"
# Past the largest published point (32 nodes) a row says it is an extrapolation.
[[ $(sed -n 4p <<<"$csv") == 64,2048,*,true, ]] || fail "csv row beyond 32 nodes: $csv"
text=$(run llama2_7b_nxd --plan --nodes 16 --sweep 32,64)
[[ $(grep -c 'extrapolated$' <<<"$text") == 1 && $(grep 'extrapolated$' <<<"$text") == "    64 "* ]] ||
  fail "only the 64-node row is extrapolated: $text"
run "${trn1[@]}" --sweep 1,2,4 --png "$out/sweep.png" --price-on-demand 10 >/dev/null || fail "png: $(cat "$out/stderr")"
[[ $(head -c 4 "$out/sweep.png" | od -An -c | tr -d ' ') == "211PNG" ]] || fail "no PNG in $out/sweep.png"
grep -q '"cost_on_demand_usd"' "$out/sweep.png.json" || fail "no sweep data beside the plot"

expect_error() {  # expect_error PATTERN ARGS...: exit 2 and a line saying PATTERN
  local pattern=$1 status=0
  shift
  run "$@" >/dev/null || status=$?
  [[ $status == 2 ]] || fail "trn-run $*: exit $status, expected 2 ($(cat "$out/stderr"))"
  grep -qE -e "$pattern" "$out/stderr" || fail "trn-run $*: said '$(cat "$out/stderr")', expected /$pattern/"
}
expect_error "--sweep, --csv and --png forecast a plan: add --plan" bert_pretrain --nodes 1 --sweep 1,2
expect_error "--csv and --png print a sweep: add --sweep" "${trn1[@]}" --csv
expect_error "--sweep '8-4': the range 8-4 runs backwards" "${trn1[@]}" --sweep 8-4
expect_error "--price-on-demand '-1': give USD per node-hour" "${trn1[@]}" --price-on-demand -1
expect_error "cannot read $out/none/results.json: No such file" "${trn1[@]}" --calibrate "$out/none"
expect_error "--sweep: nothing to forecast: CPU nodes have no published calibration" bert_tiny --plan --nodes 2 --sweep 1,2
expect_error "forecast_model must be bert-tiny, bert-mini" "${trn1[@]}" --set forecast_model=gpt-5
mkdir "$out/cpu-run"
echo '{"plan": {"nodes": 1, "workers_per_node": 1, "tensor_parallel": 1, "pipeline_parallel": 1, "data_parallel": 1, "instance_type": null}, "results": {"parameters": {"micro_batch": 8, "accumulation": 8, "global_batch": 64, "flops_per_sequence": 1e9, "parameter_count": 4e6}, "step_time_median_s": 1.0, "phase_medians": {"micro_step_s": 0.1, "allreduce_s": 0, "optimizer_s": 0.01}}}' >"$out/cpu-run/results.json"
expect_error "that run was on CPU nodes and this plan is for trn1.32xlarge nodes" "${trn1[@]}" --calibrate "$out/cpu-run"
mkdir "$out/huge-run"
sed 's/"micro_step_s": 0.1/"micro_step_s": 1e300/' "$out/cpu-run/results.json" >"$out/huge-run/results.json"
expect_error "phase_medians.micro_step_s is 1e\+300, not a number above 0 and at most 1e\+06" bert_tiny --plan --nodes 1 \
  --sweep 1,2 --calibrate "$out/huge-run"
sweep=$(run bert_tiny --plan --nodes 1 --sweep 1,2 --calibrate "$out/cpu-run") || fail "calibrated sweep: $(cat "$out/stderr")"
grep -q "calibrated from measured run $out/cpu-run/results.json (1 node(s))" <<<"$sweep" || fail "calibrated sweep: $sweep"
# README's sweep as written, on a machine that is not a compute node (no --nodes, no Neuron, no
# Slurm job): the compute nodes' type, here the profile's instance_type, gives rows for 1-16 nodes;
# --instance-type gives the same.
readme=$(run bert_pretrain --plan --sweep 1,2,4,8,16) || fail "README's sweep: $(cat "$out/stderr")"
[[ $(grep -cE '^ +(1|2|4|8|16) +[0-9]+ ' <<<"$readme") == 5 ]] || fail "README's sweep has no 5 rows: $readme"
grep -qF "trn1.32xlarge" <<<"$readme" || fail "README's sweep is not for trn1.32xlarge: $readme"
typed=$(run bert_pretrain --plan --sweep 1,2,4,8,16 --instance-type trn1.32xlarge) || fail "typed sweep: $(cat "$out/stderr")"
[[ $typed == "$readme" ]] || fail "--instance-type trn1.32xlarge sweeps otherwise: $typed"
# A sweep does not depend on --nodes, even one that cannot plan itself.
tp32=(llama2_7b --plan --sweep 1,2,4,8 --set tensor_parallel=32 --set pipeline_parallel=4)
one=$(run "${tp32[@]}" --nodes 1) || fail "sweep with an infeasible --nodes 1: $(cat "$out/stderr")"
four=$(run "${tp32[@]}" --nodes 4) || fail "sweep with --nodes 4: $(cat "$out/stderr")"
none=$(run "${tp32[@]}") || fail "sweep without --nodes: $(cat "$out/stderr")"
[[ $one == "$four" && $none == "$four" ]] || fail "the sweep depends on --nodes: $one // $four // $none"
[[ $(grep -cE '^ +(1|2) +infeasible' <<<"$four") == 2 ]] || fail "1 and 2 nodes not marked infeasible: $four"
# A refusal never asks for a key the profile already sets.
run bert_tiny --plan --nodes 2 --sweep 1,2 >/dev/null 2>&1 || true
! grep -q "set forecast_model" "$out/stderr" || fail "asks to set forecast_model, which bert_tiny sets: $(cat "$out/stderr")"
# --png names a file it can write: a folder, a missing parent folder or an unwritable place is
# bad input naming the path, and nothing claims success.
expect_error "--png $out: is a folder: name the PNG file" "${trn1[@]}" --sweep 1,2 --png "$out"
expect_error "--png $out/none/sweep.png: the folder $out/none does not exist" "${trn1[@]}" --sweep 1,2 --png "$out/none/sweep.png"
expect_error "--png /proc/sweep.png: cannot write in /proc" "${trn1[@]}" --sweep 1,2 --png /proc/sweep.png
# Machine-readable output stays that: messages go to stderr, and one format at a time.
run "${trn1[@]}" --sweep 1,2 --json --png "$out/json.png" | /usr/bin/python3 -c 'import json, sys; json.load(sys.stdin)' ||
  fail "--json --png does not print valid JSON"
[[ $(run "${trn1[@]}" --sweep 1,2 --csv --png "$out/csv.png" | head -n 1) == nodes,* ]] || fail "--csv --png: a message before the header"
expect_error "--json and --csv: give one" "${trn1[@]}" --sweep 1,2 --json --csv
echo "ok: trn-run's forecast line, sweeps in every format, and their bad input"
