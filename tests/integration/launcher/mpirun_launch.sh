#!/usr/bin/env bash
# A profile with launch: mpirun (the MPI flows' workers, seed 003): trn-run's training step is one
# MPI job - srun --mpi=pmix, a task per worker - so an MPI program's ranks all-reduce across the
# nodes. Outside Slurm the same profile is refused: there trn-run starts the workers without MPI.
source "$(dirname "$0")/../lib.sh"
make_scratch
printf 'description: an MPI all-reduce as the workers\ncommand: %s\nmicro_batch: 1\nglobal_batch: 4\nsteps: 1\nlaunch: mpirun\ncpu_workers_per_node: 2\nmax_restarts: 0\n' \
  "$TRN_BUILD_DIR/tests/integration/mpi_allreduce_probe" >"$scratch/mpi.yaml"
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "$scratch/mpi.yaml" --output-root "$scratch/runs")
wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "the launch: mpirun job failed"; }
out=$scratch/trn-run-$job.out
grep -q "^launch            mpirun: 2 tasks per node" "$out" || fail "the plan's launch line: $(grep '^launch' "$out")"
# Ranks 0..3 contribute rank+1: every rank saw 10, from two hosts (rank 0's line is on stdout,
# the others in the nodes' logs).
logs=$(cat "$scratch"/runs/mpi-"$job"/logs/train_*_2.log)
expect_eq "$(grep -c 'sum=10$' <<<"$logs")" 4 "MPI ranks that saw the all-reduced sum"
expect_eq "$(grep -o 'rank [0-9]/4 [^ ]*' <<<"$logs" | awk '{print $3}' | sort -u | wc -l)" 2 "hosts of the MPI ranks"

set +e
refused=$(on_node 1 trn-run "$scratch/mpi.yaml" --launcher local --output-root "$scratch/runs" 2>&1)
status=$?
set -e
expect_eq "$status" 2 "exit status of launch: mpirun outside Slurm"
grep -q "launch: mpirun makes the workers one MPI job" <<<"$refused" || fail "outside Slurm: $refused"
echo ok
