#!/usr/bin/env bash
# srun across every node runs once on each, and each node has its own host name.
source "$(dirname "$0")/../lib.sh"
names=$(slurm srun -N "$TRN_TEST_NODES" hostname | sort)
expect_eq "$(sort -u <<<"$names" | wc -l)" "$TRN_TEST_NODES" "distinct host names from srun -N$TRN_TEST_NODES"
expect_eq "$names" "$(slurm scontrol show hostnames "$TRN_TEST_CLUSTER-[1-$TRN_TEST_NODES]" | sort)" "host names are the Slurm node names"
echo "ok: $(tr '\n' ' ' <<<"$names")"
