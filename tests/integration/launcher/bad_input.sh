#!/usr/bin/env bash
# Bad input gets one clear error: an unknown profile lists the available ones, a mistyped key
# is named with file:line:column, infeasible scaling lists the node counts that work, and
# trn-run on a Slurm login node without --nodes says how to submit, and inside a job --nodes
# must be the job's node count.
source "$(dirname "$0")/../lib.sh"
make_scratch
expect_error() {  # expect_error PATTERN CMD...: CMD fails with exit 2 and says PATTERN
  local pattern=$1 out status=0
  shift
  out=$("$@" 2>&1) || status=$?
  expect_eq "$status" 2 "exit status of $*"
  grep -qE "$pattern" <<<"$out" || fail "'$*' did not say /$pattern/: $out"
  echo "ok: $(head -c 200 <<<"$out")"
}
expect_error "unknown profile 'bert_tinny'.*bert_tiny" slurm_with_tools trn-run bert_tinny --nodes 1 --plan
printf 'command: python3 -m trn_trainer pretrain\nmicro_batch: 8\nglobal_bacth: 64\nsteps: 4\n' >"$scratch/typo.yaml"
expect_error "typo.yaml:3:1: .*global_bacth.*global_batch" slurm_with_tools trn-run "$scratch/typo.yaml" --nodes 1 --plan
# On the cluster's login node (Slurm's configuration, no job): refused, naming sbatch and
# --launcher local (docs/launchers.md#own-workers).
expect_error "not inside a Slurm job, on a machine with a Slurm configuration .*: submit with .sbatch --nodes=N trn-run bert_tiny.*--launcher local" \
  slurm_with_tools trn-run bert_tiny
expect_error "not inside a Slurm job" slurm_with_tools trn-run bert_tiny --nodes 2

# Infeasible strong scaling inside a real job: the job fails, its output lists what works.
job=$(slurm_with_tools sbatch --parsable --nodes=3 -D "$scratch" trn-run bert_tiny --data "$(test_data_dir)")
job_end_state "$job" >/dev/null
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)" "2:0" "exit code of the infeasible job"
grep -q "node counts that work: 1, 2, 4, 8" "$scratch/trn-run-$job.out" || fail "infeasible plan message: $(cat "$scratch/trn-run-$job.out")"
echo "ok: infeasible scaling on 3 nodes refused"

# Inside a job, --nodes other than the job's node count fails at once, naming both (more nodes
# used to fail every try and be requeued; fewer left nodes idle).
for asked in 4 1; do
  job=$(slurm_with_tools sbatch --parsable --nodes=2 -D "$scratch" trn-run bert_tiny --nodes $asked --data "$(test_data_dir)")
  job_end_state "$job" >/dev/null
  expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)" "2:0" "exit code of --nodes $asked in a 2-node job"
  grep -q -e "--nodes $asked does not match job $job, which has 2 node(s)" "$scratch/trn-run-$job.out" ||
    fail "--nodes $asked in a 2-node job: $(cat "$scratch/trn-run-$job.out")"
  echo "ok: --nodes $asked in a 2-node job refused"
done

# On Neuron nodes (the trn1.32xlarge fixture) without neuron_parallel_compile the compile phase
# is an install error, not a skipped "CPU or GPU run".
# The local nodes have 2 CPUs where a trn1.32xlarge has 128: Slurm's count is hidden from trn-run,
# so that the plan's 32 workers per node are not held against it.
job=$(slurm_with_tools sbatch --parsable --nodes=1 -D "$scratch" --wrap "unset SLURM_JOB_CPUS_PER_NODE; trn-run bert_tiny --set micro_batch=2 --fsroot $TRN_SOURCE_DIR/tests/fixtures/trn1.32xlarge --data $(test_data_dir)" -o "$scratch/trn-run-%j.out")
job_end_state "$job" >/dev/null
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)" "2:0" "exit code without neuron_parallel_compile on a Neuron node"
grep -q "neuron_parallel_compile is not installed on this Neuron node" "$scratch/trn-run-$job.out" ||
  fail "no install error without neuron_parallel_compile: $(cat "$scratch/trn-run-$job.out")"
echo "ok: a Neuron node without neuron_parallel_compile is an install error"

# Spares that leave no node to train on: the job fails at once, naming both counts and the fix.
job=$(slurm_with_tools sbatch --parsable --nodes=2 -D "$scratch" trn-run bert_tiny --spare-nodes 2 --data "$(test_data_dir)")
job_end_state "$job" >/dev/null
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)" "2:0" "exit code of --spare-nodes 2 in a 2-node job"
grep -q "spare_nodes 2 leaves none of the 2 node(s) to train on: keep fewer spares (--spare-nodes) or submit with more nodes (sbatch --nodes=4)" "$scratch/trn-run-$job.out" ||
  fail "--spare-nodes 2 in a 2-node job: $(cat "$scratch/trn-run-$job.out")"
echo "ok: spares that leave no node to train on refused"

# A job without --exclusive holds one CPU per node, and llama_tiny starts 2 workers per node
# (issue 27.2): refused before any step, exit 2, naming --exclusive. Where trn-run cannot see
# the job's CPUs, srun's refusal of the step is the same configuration error: no restart, no
# drained node, never "a node or fabric failure" (exit 5).
not_drained() {
  local states
  states=$(slurm sinfo -h -N -n "$(node 1),$(node 2)" -o '%T' | sort -u | tr '\n' ' ')
  [[ $states != *drain* ]] || fail "a node was drained: $states"
}
for hide in "" "unset SLURM_JOB_CPUS_PER_NODE; "; do
  job=$(slurm_with_tools sbatch --parsable --nodes=2 -D "$scratch" -o "$scratch/trn-run-%j.out" \
    --wrap "${hide}trn-run llama_tiny --data $(test_data_dir) --output-root $scratch/runs")
  job_end_state "$job" >/dev/null
  out=$(cat "$scratch/trn-run-$job.out")
  expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)" "2:0" "exit code of a job without --exclusive (${hide:-seen by trn-run})"
  if [[ -z $hide ]]; then
    grep -q "job $job holds 1 CPU(s) on $(node 1) (SLURM_JOB_CPUS_PER_NODE), but the plan starts 2 workers per node.*sbatch --exclusive" <<<"$out" ||
      fail "no allocation message: $out"
    grep -q "trn-run: training" <<<"$out" && fail "a step started: $out"
  else
    grep -q "Slurm refused to start the training step (.*More processors requested than permitted).*--exclusive.*Not a node failure" <<<"$out" ||
      fail "srun's refusal not reported as the job's configuration: $out"
    grep -q "training (restart\|requeueing job\|node or fabric failure" <<<"$out" && fail "restarted or requeued: $out"
  fi
  not_drained
  echo "ok: a job without --exclusive ${hide:+(CPUs hidden) }is refused with exit 2"
done
