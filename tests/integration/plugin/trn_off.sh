#!/usr/bin/env bash
# --neuron-trn=off (srun or sbatch) sets nothing: the tasks' environment is what it is without
# the plugin.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 2 2:32:2 "fsroot=$fixtures/trn1.32xlarge"

# names SRUN ARGS...: the variable names the tasks saw. A failing srun fails the test (its empty
# output would otherwise pass every "nothing is set" check); call it as v=$(names ...) so that
# the failure is not lost in a command substitution inside another command's arguments.
names() {
  local out
  out=$(pslurm "$@") || fail "'$*' failed with status $?"
  cut -d= -f1 <<<"$out" | sort -u
}
expect_none() {  # expect_none WHAT NAMES: none of the plugin's variables is among NAMES
  local var
  for var in $plugin_vars; do
    if grep -qx "$var" <<<"$2"; then fail "$var is set $1"; fi
  done
}
on=$(names srun -N2 --ntasks-per-node=2 env)
grep -qx NEURON_RT_VISIBLE_CORES <<<"$on" || fail "the plugin is not active without --neuron-trn=off"
off=$(names srun -N2 --ntasks-per-node=2 --neuron-trn=off env)
expect_none "with srun --neuron-trn=off" "$off"

psbatch_wait -N1 --neuron-trn=off -o "$scratch/out" --wrap 'srun env' >/dev/null
grep -q '^SLURM_JOB_ID=' "$scratch/out" || fail "the batch job's srun printed no environment"
expect_none "with sbatch --neuron-trn=off" "$(cut -d= -f1 "$scratch/out" | sort -u)"

# default=off in plugstack.conf: nothing unless the user asks with a --neuron-* option.
plugin_args "fsroot=$fixtures/trn1.32xlarge" default=off
default_off=$(names srun -N2 env)
expect_none "with default=off and no option" "$default_off"
asked_on=$(names srun -N1 --neuron-trn=on env)
grep -qx NEURON_RT_VISIBLE_CORES <<<"$asked_on" || fail "--neuron-trn=on with default=off set nothing"
echo "ok"
