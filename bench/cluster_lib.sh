# Shared by the benchmarks that run trn-run on a local cluster (sourced from the project root,
# after $root and $build are set): a private cluster and work folder removed on exit, Slurm
# clients with this build's tools, job helpers, and the fortunes corpus as BERT shards.
name=bench$$
work=$(mktemp -d /tmp/trn-bench.XXXXXX)
chmod 0777 "$work"
cluster() { scripts/cluster --name "$name" "$@"; }
trap 'cluster down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
slurm() { cluster exec env PATH="$build/bin:/usr/bin:/bin:/usr/sbin:/sbin" "$@"; }
source tests/integration/wait_until.sh
job_field() { slurm scontrol show job -o "$1" | grep -o " $2=[^ ]*" | cut -d= -f2; }
job_ended() { ! [[ $(job_field "$1" JobState) =~ PENDING|RUNNING|CONFIGURING|COMPLETING ]]; }
wait_done() {  # wait_done JOB: fails (showing its output) unless it COMPLETED
  wait_until 900 "job $1 ended" job_ended "$1"
  [[ $(job_field "$1" JobState) == COMPLETED ]] || { cat "$work/trn-run-$1.out" >&2; echo "job $1 failed" >&2; exit 1; }
}
# The project's Python (requirements.txt), also the jobs' training environment.
python=$root/scripts/python
TRN_TRAINING_VENV=$("$python" -c 'import sys; print(sys.prefix)') || exit 2
export TRN_TRAINING_VENV
field() { "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# bench_cluster_up NODES: the cluster with the plugin (bind=none: the nodes share this machine's
# CPUs; caches stay in the work folder) and the corpus in $work/data.
bench_cluster_up() {
  # The nodes share this machine's cores: each training process its share as OpenMP threads.
  export OMP_NUM_THREADS=$(( $(nproc) / $1 > 1 ? $(nproc) / $1 : 1 ))
  echo "required $build/spank_plugin/spank_trn.so bind=none topology_cache=$work/topology local_cache=$work/cache" \
    >"$work/plugstack.conf"
  cluster up "$1" --plugstack "$work/plugstack.conf" >/dev/null
  PYTHONPATH=$root/trainer "$python" -m trn_trainer prepare-data --input /usr/share/games/fortunes \
    --output "$work/data" --num-shards 4 --dupe-factor 1 --name fortunes >/dev/null
}
