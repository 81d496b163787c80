#!/usr/bin/env bash
# During training: (1) a rank that stops with a Neuron runtime hardware status (status=1202)
# is a failure of its node, named and drained, not a user error, even though every other rank
# then fails with the same error; (2) ranks that all fail alike (a user error on its face) are a
# node failure when a node's kernel log gained a NEURON_HW_ERR line meanwhile.
source "$(dirname "$0")/../lib.sh"
make_scratch
mkdir -p "$scratch/nodes"
for i in $(seq 1 "$TRN_TEST_NODES"); do cp -r "$TRN_SOURCE_DIR/tests/fixtures/cpu-only" "$scratch/nodes/$(node "$i")"; done
for i in 1 2 3; do on_exit "slurm scontrol update NodeName=$(node "$i") State=RESUME >/dev/null 2>&1 || true"; done

# A profile whose workers are a script: on the victim node it does what the case needs.
profile() {  # profile NAME SCRIPT-BODY
  cat >"$scratch/$1.sh" <<SCRIPT
#!/bin/sh
$2
SCRIPT
  sed "s|^command: .*|command: /bin/sh $scratch/$1.sh|; /^  python3 -m trn_trainer/,/--checkpoint-every/d; s|^max_restarts: .*|max_restarts: 0|; s|^global_batch: .*|global_batch: 48|" \
    "$TRN_SOURCE_DIR/launcher/profiles/bert_tiny.yaml" >"$scratch/$1.yaml"
}
run_job() {  # run_job PROFILE: a 3-node job; prints its output once it ended (it must fail)
  local job state
  job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=3 --nodelist="$(node 1),$(node 2),$(node 3)" \
    -D "$scratch" trn-run "$scratch/$1.yaml" --fsroot "$scratch/nodes/%n")
  state=$(job_end_state "$job")
  [[ $state == FAILED ]] || { cat "$scratch/trn-run-$job.out" >&2; fail "job $job ended $state, expected FAILED"; }
  cat "$scratch/trn-run-$job.out"
}
reason() { slurm scontrol show node -o "$(node "$1")" | grep -o 'Reason=.*'; }

# The other ranks fail only once the victim's rank has done its part: srun ends the step when
# the first task exits, and a victim still starting (a loaded machine) would never do it.
wait_for() { echo "for i in \$(seq 300); do [ -e $1 ] && break; sleep 0.1; done"; }
profile hw_status "
if [ \"\$SLURMD_NODENAME\" = $(node 3) ]; then
  echo 'ERROR NRT:nrt_execute failed with status=1202'; touch $scratch/hw_status.done; exit 1
fi
$(wait_for "$scratch/hw_status.done")
echo 'RuntimeError: collective operation timed out'; exit 1"
out=$(run_job hw_status)
grep -q "trn-run: $(node 3) failed (trn-health: runtime: NRT_EXEC_HW_ERR_NC_UE (1202) on rank 2); drained" <<<"$out" ||
  fail "node 3 not named: $out"
grep -q "node $(node 3) failed" <<<"$out" || fail "not a node failure: $out"
reason 3 | grep -q '^Reason=trn-health: runtime: NRT_EXEC_HW_ERR_NC_UE (1202) on rank 2' || fail "node 3: $(reason 3)"
slurm scontrol update NodeName="$(node 3)" State=RESUME

profile kmsg_line "
if [ \"\$SLURMD_NODENAME\" = $(node 2) ]; then
  echo '3,9,1,-;neuron: NEURON_HW_ERR=NC_UNCORRECTABLE_ERROR nd-id=0 nc-id=0 action=REPLACE' >>$scratch/nodes/\$SLURMD_NODENAME/dev/kmsg
  touch $scratch/kmsg_line.done
fi
$(wait_for "$scratch/kmsg_line.done")
echo 'RuntimeError: collective operation timed out'; exit 1"
out=$(run_job kmsg_line)
grep -q "node $(node 2) is unhealthy after the failure (trn-health: kernel-log: NEURON_HW_ERR=NC_UNCORRECTABLE_ERROR" <<<"$out" ||
  fail "not judged a node failure of node 2: $out"
reason 2 | grep -q '^Reason=trn-health: kernel-log: NEURON_HW_ERR=NC_UNCORRECTABLE_ERROR' || fail "node 2: $(reason 2)"
echo "ok"
