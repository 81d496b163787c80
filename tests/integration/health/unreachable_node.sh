#!/usr/bin/env bash
# An unreachable node on the local cluster: in node 3's network namespace, blackhole routes to
# nodes 1 and 2 (its link to the controller stays, so Slurm still starts its task, from srun on
# the controller). `srun --ntasks-per-node=1 trn-health --step` on the 3 nodes: nodes 1 and 2
# each name exactly node 3 as unreached, node 3 names both others, and no node-local check
# fails. (Unreachable is a network condition, not a recorded tree: docs/health.md#reach.)
source "$(dirname "$0")/../lib.sh"
address() { cluster on "$(node 3)" getent hosts "$(node "$1")" | awk '{print $1}'; }
victim=$(node 3)
for i in 1 2; do
  ip=$(address "$i")
  [[ -n $ip ]] || fail "cannot resolve $(node "$i") on $victim"
  # Whatever happens, the shared cluster gets its network back.
  on_exit "cluster on '$victim' ip route del blackhole '$ip/32' 2>/dev/null || true"
  cluster on "$victim" ip route add blackhole "$ip/32"
done

start=$SECONDS
out=$(slurm_with_tools srun --label --nodes=3 --ntasks=3 --ntasks-per-node=1 --kill-on-bad-exit=0 \
  --nodelist="$(node 1),$(node 2),$(node 3)" \
  trn-health --step --json --reach-deadline-ms 3000 --fsroot "$TRN_SOURCE_DIR/tests/fixtures/cpu-only" \
  2>/dev/null) || true  # srun's own messages (stderr) may land inside a line
elapsed=$((SECONDS - start))

"$python" - "$out" "$(node 1)" "$(node 2)" "$(node 3)" <<'PY' || fail "reports: $out"
import json, sys
out, n1, n2, n3 = sys.argv[1:]
tasks = {}  # srun --label cuts lines at 1024 bytes: join each task's pieces
for line in out.splitlines():
    task, _, text = line.partition(": ")
    tasks[task] = tasks.get(task, "") + text
reports = {r["node"]: r for r in map(json.loads, tasks.values())}
assert set(reports) == {n1, n2, n3}, sorted(reports)
want = {n1: [n3], n2: [n3], n3: [n1, n2]}
for node, peers in want.items():
    got = sorted(reports[node]["unreached"])
    assert got == sorted(peers), (node, got)
    failed = [c["check"] for c in reports[node]["checks"] if c["status"] == "FAILED"]
    assert failed == ["reach"], (node, failed)
reach = [c for c in reports[n1]["checks"] if c["check"] == "reach"][0]
assert reach["evidence"].startswith("cannot reach " + n3), reach
PY
((elapsed < 30)) || fail "the step took ${elapsed}s"

# With the routes gone the same step is healthy everywhere (nothing left behind).
run_exit_hooks
exit_hooks=()
slurm_with_tools srun --nodes=3 --ntasks=3 --ntasks-per-node=1 --nodelist="$(node 1),$(node 2),$(node 3)" \
  trn-health --step --reach-deadline-ms 3000 --fsroot "$TRN_SOURCE_DIR/tests/fixtures/cpu-only" >/dev/null ||
  fail "the step is not healthy once the routes are gone"
echo "ok"
