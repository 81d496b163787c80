#!/usr/bin/env bash
# Submits BERT pre-training phase 1 and phase 2 as two batch jobs; phase 2 waits for phase 1
# to complete successfully (--dependency=afterok) and is cancelled if phase 1 fails.
#
#   bert_pretrain_chain.sh [options] [-- trn-run options for both phases]
#     --nodes N             nodes for each phase (default 16)
#     --phase1 PROFILE      phase 1 profile (default bert_pretrain)
#     --phase2 PROFILE      phase 2 profile (default bert_pretrain_ph2)
#     --output-root DIR     where both run directories go (default ./runs)
#     --phase1-arg ARG      a trn-run argument for phase 1 only (repeatable)
#     --phase2-arg ARG      a trn-run argument for phase 2 only (repeatable)
#     --sbatch-arg ARG      an sbatch argument for both jobs (repeatable), e.g. --partition=trn1
#
# Prints one line per job: "phase1 JOBID RUN_DIR" and "phase2 JOBID RUN_DIR".
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
die() { echo "bert_pretrain_chain: $*" >&2; exit 2; }
usage() { sed -n '5,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

nodes=16 phase1=bert_pretrain phase2=bert_pretrain_ph2 output_root=runs
phase1_args=() phase2_args=() sbatch_args=() common=()
while (($#)); do
  case $1 in
    --nodes | --phase1 | --phase2 | --output-root | --phase1-arg | --phase2-arg | --sbatch-arg)
      (($# >= 2)) || die "$1 needs a value"
      case $1 in
        --nodes) nodes=$2 ;;
        --phase1) phase1=$2 ;;
        --phase2) phase2=$2 ;;
        --output-root) output_root=$2 ;;
        --phase1-arg) phase1_args+=("$2") ;;
        --phase2-arg) phase2_args+=("$2") ;;
        --sbatch-arg) sbatch_args+=("$2") ;;
      esac
      shift 2 ;;
    --) shift; common=("$@"); break ;;
    -h | --help) usage ;;
    *) die "unknown argument '$1' (trn-run options go after --; see --help)" ;;
  esac
done
[[ $nodes =~ ^[1-9][0-9]*$ ]] || die "--nodes takes a whole number >= 1, got '$nodes'"
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login or head node"

# Both jobs must agree on it, and phase 2 runs later, maybe from another directory.
output_root=$(realpath -m "$output_root")
profile_name() { local name; name=$(basename "$1"); name=${name%.yaml}; echo "${name%.yml}"; }

# Both phases are planned here first, so a mistyped profile or option is reported before
# anything is queued.
why=$(trn-run "$phase1" --nodes "$nodes" --plan "${phase1_args[@]}" "${common[@]}" 2>&1 >/dev/null) ||
  die "nothing submitted: phase 1 does not plan: $why"
why=$(trn-run "$phase2" --nodes "$nodes" --plan "${phase2_args[@]}" "${common[@]}" 2>&1 >/dev/null) ||
  die "nothing submitted: phase 2 does not plan: $why"

job1=$(sbatch --parsable --nodes="$nodes" "${sbatch_args[@]}" "$here/bert_phase1.sbatch" \
  "$phase1" --output-root "$output_root" "${phase1_args[@]}" "${common[@]}")
job1=${job1%%;*}
run1="$output_root/$(profile_name "$phase1")-$job1"
echo "phase1 $job1 $run1"

job2=$(sbatch --parsable --nodes="$nodes" --dependency="afterok:$job1" --kill-on-invalid-dep=yes \
  "${sbatch_args[@]}" "$here/bert_phase2.sbatch" "$run1" \
  "$phase2" --output-root "$output_root" "${phase2_args[@]}" "${common[@]}")
job2=${job2%%;*}
echo "phase2 $job2 $output_root/$(profile_name "$phase2")-$job2"
