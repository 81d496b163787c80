#!/usr/bin/env bash
# Scaling sweep: one `sbatch --exclusive --nodes=N trn-run PROFILE` per node count, then a
# collector job (after all of them, whatever their outcome) that writes one table and plot of
# the throughput per node count.
#
#   scaling_sweep.sh [options] PROFILE [trn-run options] [-- trainer args]
#     --nodes "1 2 4 8 16"   node counts (default); any list, e.g. "1 2 4" or "2,4,8"
#     --output-root DIR      where the sweep directory goes (default ./runs)
#     --sbatch-arg ARG       an sbatch argument for every job (repeatable), e.g. --partition=trn1
#
# The sweep directory <output root>/sweep-<profile>-<date>-<time>/ holds each run's directory
# (<profile>-<job id>), sweep.tsv (node count, job id, run directory, job output), logs/ and,
# once the collector ran, scaling.md, scaling.json and scaling.png (collect_sweep.py).
# Prints "sweep DIR", one "nodes N job JOBID" line per run and "collect JOBID".
# Strong scaling keeps the global batch and divides the accumulation (node counts where it does
# not divide fail and show as such in the table); pass --scaling weak for weak scaling.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
die() { echo "scaling_sweep: $*" >&2; exit 2; }
usage() { sed -n '6,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

node_counts="1 2 4 8 16" output_root=runs sbatch_args=()
while (($#)); do
  case $1 in
    --nodes) (($# >= 2)) || die "--nodes needs a value"; node_counts=$2; shift 2 ;;
    --output-root) (($# >= 2)) || die "--output-root needs a value"; output_root=$2; shift 2 ;;
    --sbatch-arg) (($# >= 2)) || die "--sbatch-arg needs a value"; sbatch_args+=("$2"); shift 2 ;;
    -h | --help) usage ;;
    -*) die "unknown option '$1' before the profile (see --help)" ;;
    *) break ;;
  esac
done
(($#)) || die "no profile given; usage: scaling_sweep.sh [options] PROFILE [trn-run options]"
profile=$1
shift
read -r -a nodes <<<"${node_counts//,/ }"
((${#nodes[@]})) || die "--nodes lists no node count"
for n in "${nodes[@]}"; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "--nodes: '$n' is not a node count"; done
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login or head node"

# Plan every node count here first: a mistyped profile or option fails them all and nothing is
# queued (trn-run in a job reports it only once the job runs). A count that alone does not
# work is still swept (its row shows trn-run's message), with a warning now.
planned=0 why=
for n in "${nodes[@]}"; do
  if why_n=$(trn-run "$profile" --nodes "$n" --plan "$@" 2>&1 >/dev/null); then
    planned=$((planned + 1))
  else
    why=$why_n
    echo "scaling_sweep: warning: $n node(s) will fail: $why_n" >&2
  fi
done
((planned)) || die "nothing submitted: no node count plans: $why"

name=$(basename "$profile")
name=${name%.yaml}
name=${name%.yml}
sweep=$(realpath -m "$output_root")/sweep-$name-$(date +%Y%m%d-%H%M%S)
mkdir -p "$sweep/logs"
printf 'nodes\tjob\trun_dir\toutput\n' >"$sweep/sweep.tsv"
echo "sweep $sweep"

jobs=()
for n in "${nodes[@]}"; do
  job=$(sbatch --parsable --exclusive --nodes="$n" --job-name="sweep-$name-$n" \
    --output="$sweep/logs/nodes-$n-%j.out" "${sbatch_args[@]}" \
    trn-run "$profile" --output-root "$sweep" "$@")
  job=${job%%;*}
  jobs+=("$job")
  printf '%s\t%s\t%s\t%s\n' "$n" "$job" "$sweep/$name-$job" "$sweep/logs/nodes-$n-$job.out" >>"$sweep/sweep.tsv"
  echo "nodes $n job $job"
done

deps=$(IFS=:; echo "${jobs[*]}")
collect=$(sbatch --parsable --nodes=1 --job-name="sweep-$name-collect" --dependency="afterany:$deps" \
  --output="$sweep/logs/collect-%j.out" "${sbatch_args[@]}" \
  --wrap "exec $(printf '%q ' "${TRN_PYTHON:-python3}" "$here/collect_sweep.py" "$sweep")")
collect=${collect%%;*}
echo "collect $collect"
echo "table and plot when it ends: $sweep/scaling.md $sweep/scaling.png" >&2
