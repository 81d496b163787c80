#!/usr/bin/env bash
# An exclusive batch job over every node completes and its step reaches each node.
source "$(dirname "$0")/../lib.sh"
make_scratch
dir=$scratch
sbatch_and_wait --exclusive --nodes="$TRN_TEST_NODES" -o "$dir/out" --wrap 'srun hostname' >/dev/null
expect_eq "$(sort -u "$dir/out" | wc -l)" "$TRN_TEST_NODES" "distinct nodes in the exclusive job's output"
echo "ok: $(sort "$dir/out" | tr '\n' ' ')"
