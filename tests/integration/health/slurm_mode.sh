#!/usr/bin/env bash
# trn-health --slurm as a real cluster's HealthCheckProgram (its own 2-node cluster, checks every
# second, one recorded tree per node): a node whose kernel log gains a NEURON_HW_ERR line is
# drained with a "trn-health:" reason; once the node is replaced by a clean one (as
# ParallelCluster's clustermgtd does) it is resumed; a node an operator drained for another
# reason is left drained.
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
echo "ok"
