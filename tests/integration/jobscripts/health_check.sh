#!/usr/bin/env bash
# jobscripts/health_check.sbatch: passes on the local cluster's alike nodes with the plugin
# active; fails, naming the nodes, when one node differs from the others, when nodes have EFA
# devices but libfabric has no efa provider, and when the plugin is off.
source "$(dirname "$0")/../lib.sh"
make_scratch
script=$TRN_SOURCE_DIR/jobscripts/health_check.sbatch
fixtures=$TRN_SOURCE_DIR/tests/fixtures
check() {  # check STATE [sbatch args and script args...]: runs the job, prints its output
  local want=$1 job state
  shift
  job=$(slurm_with_tools sbatch --parsable --nodes="$TRN_TEST_NODES" -D "$scratch" "$@")
  state=$(job_end_state "$job")
  [[ $state == "$want" ]] || { cat "$scratch/trn-health-$job.out" >&2; fail "health check job ended $state, expected $want"; }
  cat "$scratch/trn-health-$job.out"
}

out=$(check COMPLETED "$script")
grep -q "health check ok: $TRN_TEST_NODES node(s) alike and ready" <<<"$out" || fail "no ok line: $out"
for i in $(seq 1 "$TRN_TEST_NODES"); do
  grep -qE "^$(node "$i") .* ok$" <<<"$out" || fail "node $(node "$i") is not reported ok: $out"
done

# Recorded trn1.32xlarge nodes: 16 devices, 32 NeuronCores, 8 EFA devices, and Debian's libfabric
# has no efa provider.
out=$(check FAILED "$script" --fsroot "$fixtures/trn1.32xlarge")
grep -qE "^$(node 1) +trn1.32xlarge +16 +32 +8 +128 " <<<"$out" || fail "trn1.32xlarge not read: $out"
expect_eq "$(grep -c 'EFA device(s) but libfabric has no efa provider' <<<"$out")" "$TRN_TEST_NODES" "nodes without an efa provider"

# One odd node: node 2 sees a trn1.2xlarge tree, the others a cpu-only one (a trn-topo wrapper
# first on PATH picks the tree by node name).
mkdir "$scratch/bin"
cat >"$scratch/bin/trn-topo" <<WRAPPER
#!/bin/sh
case \$SLURMD_NODENAME in
  $(node 2)) tree=trn1.2xlarge ;;
  *) tree=cpu-only ;;
esac
exec "$TRN_BUILD_DIR/bin/trn-topo" --fsroot "$fixtures/\$tree" "\$@"
WRAPPER
chmod +x "$scratch/bin/trn-topo"
job=$(slurm env PATH="$scratch/bin:$TRN_BUILD_DIR/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
  sbatch --parsable --nodes="$TRN_TEST_NODES" -D "$scratch" "$script")
expect_eq "$(job_end_state "$job")" FAILED "state of the health check with an odd node"
out=$(cat "$scratch/trn-health-$job.out")
grep -q "^  $(node 2): trn1.2xlarge with 1 devices, 2 NeuronCores, 0 EFA, 8 CPUs, unlike the other $((TRN_TEST_NODES - 1)) node(s) (c5.2xlarge" <<<"$out" ||
  fail "the odd node is not named: $out"
expect_eq "$(grep -c '^  ' <<<"$out")" 1 "problems reported (only the odd node)"

# The plugin off for the job (its own srun option, passed on from sbatch): every node fails.
out=$(check FAILED --neuron-trn=off "$script")
expect_eq "$(grep -c 'spank_trn did not set up the task' <<<"$out")" "$TRN_TEST_NODES" "nodes without the plugin"
echo "ok"
