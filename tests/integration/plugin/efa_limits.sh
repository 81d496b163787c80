#!/usr/bin/env bash
# EFA needs locked memory and many descriptors: a login shell's 64 KiB memlock and 1024 open
# files, which Slurm propagates, are raised for the tasks where EFA is in use.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 1 2:32:2 "fsroot=$fixtures/trn1.32xlarge"

limits() { bash -c "ulimit -l 64; ulimit -n 1024; \"\$@\"" limits "$@"; }
probe='echo "$(ulimit -l) $(ulimit -n)"'
# As far as this machine allows: unlimited memlock and 65535 files, or the hard limits where
# root may not raise them (a container without CAP_SYS_RESOURCE). slurmd has our limits.
want_memlock=$(bash -c 'ulimit -l unlimited 2>/dev/null && echo unlimited || ulimit -Hl')
want_nofile=$(bash -c 'ulimit -n 65535 2>/dev/null && echo 65535 || ulimit -Hn')

read -r memlock nofile <<<"$(limits "$TRN_SOURCE_DIR/scripts/cluster" --name "$pname" exec srun -N1 -n1 bash -c "$probe")"
expect_eq "$memlock" "$want_memlock" "memlock of an EFA task (submitted with 64 KiB)"
expect_eq "$nofile" "$want_nofile" "nofile of an EFA task (submitted with 1024)"

read -r memlock nofile <<<"$(limits "$TRN_SOURCE_DIR/scripts/cluster" --name "$pname" exec srun -N1 -n1 --neuron-efa=off bash -c "$probe")"
expect_eq "$memlock $nofile" "64 1024" "limits without EFA (propagated from the submitting shell)"
echo "ok: EFA task memlock=$want_memlock nofile=$want_nofile"
