#!/usr/bin/env bash
# trn-health --slurm as a real cluster's HealthCheckProgram (its own 2-node cluster, checks every
# second, one recorded tree per node): a node whose kernel log gains a NEURON_HW_ERR line is
# drained with a "trn-health:" reason; once the node is replaced by a clean one (as
# ParallelCluster's clustermgtd does) it is resumed; a node an operator drained for another
# reason is left drained. Then node 2 is a trn2.48xlarge, drained for an uncorrectable HBM error
# and, once replaced, for an EFA device in error.
source "$(dirname "$0")/../lib.sh"
make_scratch
hname="${TRN_TEST_CLUSTER}h"
hcluster() { "$TRN_SOURCE_DIR/scripts/cluster" --name "$hname" "$@"; }
hslurm() { hcluster exec "$@"; }
node() { echo "$hname-$1"; }
fixtures=$TRN_SOURCE_DIR/tests/fixtures
mkdir -p "$scratch/nodes" "$scratch/state"
for i in 1 2; do cp -r "$fixtures/trn1.2xlarge" "$scratch/nodes/$(node "$i")"; done

# What the packaged trn-health-check does, with this cluster's SLURM_CONF and the trees.
conf=/run/trn-cluster/$hname/etc/slurm.conf
cat >"$scratch/health-check" <<SCRIPT
#!/bin/sh
PATH=/usr/bin:/bin SLURM_CONF=$conf exec "$TRN_BUILD_DIR/bin/trn-health" --slurm \
  --fsroot "$scratch/nodes/%n" --state-dir "$scratch/state/%n" >>"$scratch/health-%n.log" 2>&1
SCRIPT
sed -i "s/%n.log/\$SLURMD_NODENAME.log/" "$scratch/health-check"
chmod 0755 "$scratch/health-check"
cat >"$scratch/extra.conf" <<CONF
HealthCheckProgram=$scratch/health-check
HealthCheckInterval=1
HealthCheckNodeState=ANY
CONF
on_exit 'hcluster down >/dev/null 2>&1 || true'
hcluster up 2 --slurm-conf-extra "$scratch/extra.conf" >/dev/null

node_line() { hslurm scontrol show node -o "$(node "$1")"; }
drained_by_us() { node_line "$1" | grep -q 'State=[A-Z+]*DRAIN.* Reason=trn-health: '; }
not_drained() { ! node_line "$1" | grep -q 'State=[A-Z+]*DRAIN'; }
baseline_recorded() { [[ -f $scratch/state/$(node "$1")/baseline.json ]]; }

# Clean nodes: the check runs, records a baseline and drains nothing.
wait_until 30 "a clean check on node 1" baseline_recorded 1
not_drained 1 || fail "clean node 1 drained: $(node_line 1)"
not_drained 2 || fail "clean node 2 drained: $(node_line 2)"

# Node 2's driver reports an uncorrectable HBM error.
echo "3,9,91234567,-;neuron: NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR instance-id=i-0test nd-id=0 nc-id=1 serial-num=t action=RESTART" \
  >>"$scratch/nodes/$(node 2)/dev/kmsg"
wait_until 30 "node 2 drained by trn-health" drained_by_us 2
node_line 2 | grep -q 'Reason=trn-health: kernel-log: NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR nd-id=0 nc-id=1 (permanent' ||
  fail "node 2's reason: $(node_line 2)"
not_drained 1 || fail "node 1 drained with node 2: $(node_line 1)"

# An operator drains node 1 for maintenance: trn-health leaves that reason alone.
hslurm scontrol update NodeName="$(node 1)" State=DRAIN Reason="disk swap"
# The node is replaced by a healthy one (a new instance under the same name, a new boot).
rm -rf "$scratch/nodes/$(node 2)"
cp -r "$fixtures/trn1.2xlarge" "$scratch/nodes/$(node 2)"
echo "11111111-2222-3333-4444-555555555555" >"$scratch/nodes/$(node 2)/proc/sys/kernel/random/boot_id"
wait_until 30 "node 2 resumed by trn-health" not_drained 2
sleep 2  # two more checks
node_line 1 | grep -q 'State=[A-Z+]*DRAIN.* Reason=disk swap' || fail "operator's drain changed: $(node_line 1)"
grep -q "resumed $(node 2)" "$scratch/health-$(node 2).log" || fail "no resume line: $(cat "$scratch/health-$(node 2).log")"

# trn2 (docs/health.md#trn2): node 2 is now a clean trn2.48xlarge (a new boot). An uncorrectable
# HBM error on one of its 16 devices drains it; a replacement resumes; then an EFA device that
# stops completing its driver's admin commands drains it again. Each reason names the device
# and the counter. Each change is followed by a slurmd restart, which runs HealthCheckProgram at
# once (here the periodic checks were seen to stop after the first resume).
check_node2_now() {
  hcluster kill-slurmd "$(node 2)" >/dev/null
  hcluster start-slurmd "$(node 2)" >/dev/null
}
replace_node2() {  # replace_node2 TREE BOOT_ID
  rm -rf "$scratch/nodes/$(node 2)"
  cp -r "$fixtures/$1" "$scratch/nodes/$(node 2)"
  echo "$2" >"$scratch/nodes/$(node 2)/proc/sys/kernel/random/boot_id"
  check_node2_now
}
trn2_baseline() { grep -qs '"neuron15/' "$scratch/state/$(node 2)/baseline.json"; }
replace_node2 trn2.48xlarge 22222222-2222-3333-4444-555555555555
wait_until 30 "a clean check of the trn2 node" trn2_baseline
not_drained 2 || fail "clean trn2 node drained: $(node_line 2)"
echo 1 >"$scratch/nodes/$(node 2)/sys/devices/virtual/neuron_device/neuron9/stats/hardware/mem_ecc_uncorrected/total"
check_node2_now
wait_until 30 "trn2 node 2 drained for its HBM error" drained_by_us 2
node_line 2 | grep -q 'Reason=trn-health: error-counters: neuron9 mem_ecc_uncorrected 1 (0 at the last clean check)' ||
  fail "trn2 node 2's HBM reason: $(node_line 2)"
replace_node2 trn2.48xlarge 33333333-2222-3333-4444-555555555555
wait_until 30 "trn2 node 2 resumed" not_drained 2
efa=$scratch/nodes/$(node 2)/sys/class/infiniband/rdmap202s0/hw_counters/no_completion_cmds
[[ -f $efa ]] || fail "no $efa in the trn2 tree"
echo 1 >"$efa"
check_node2_now
wait_until 30 "trn2 node 2 drained for its EFA device" drained_by_us 2
node_line 2 | grep -q 'Reason=trn-health: efa-errors: rdmap202s0 (0000:ca:00.0, serves neuron3) no_completion_cmds 1 (0 at the last clean check)' ||
  fail "trn2 node 2's EFA reason: $(node_line 2)"
node_line 1 | grep -q 'State=[A-Z+]*DRAIN.* Reason=disk swap' || fail "operator's drain changed: $(node_line 1)"
echo "ok"
