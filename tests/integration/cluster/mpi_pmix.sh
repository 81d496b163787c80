#!/usr/bin/env bash
# An MPI program started by srun --mpi=pmix all-reduces across two nodes.
source "$(dirname "$0")/../lib.sh"
# --kill-on-bad-exit: a rank that crashes ends the step, so the others do not spin in the
# all-reduce holding the nodes (and the CPUs) from the tests after this one.
out=$(slurm srun --mpi=pmix -N 2 --ntasks-per-node=2 --kill-on-bad-exit=1 "$TRN_BUILD_DIR/tests/integration/mpi_allreduce_probe")
echo "$out"
# Ranks 0..3 contribute rank+1: every rank must see 10, from two distinct hosts.
expect_eq "$(grep -c 'sum=10$' <<<"$out")" 4 "ranks that saw the all-reduced sum"
expect_eq "$(awk '{print $3}' <<<"$out" | sort -u | wc -l)" 2 "distinct hosts of the MPI ranks"
