#!/usr/bin/env bash
# Jobs run as an unprivileged user, on every node, with that user's identity.
source "$(dirname "$0")/../lib.sh"
make_scratch
dir=$scratch
as_nobody() { slurm setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
ids=$(as_nobody srun -D "$dir" -N 2 id -u | sort -u)
expect_eq "$ids" "$(id -u nobody)" "uid of srun tasks submitted by nobody"
as_nobody sbatch -D "$dir" --wait -N 2 -o "$dir/out" --wrap 'srun touch "$SLURMD_NODENAME"; id -un' >/dev/null
expect_eq "$(cat "$dir/out")" "nobody" "batch script user"
expect_eq "$(stat -c %U "$dir"/"$TRN_TEST_CLUSTER"-* | sort -u)" "nobody" "owner of files written by the step"
echo "ok"
