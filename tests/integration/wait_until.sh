# wait_until SECONDS WHAT CMD...: runs CMD until it succeeds; fails naming WHAT when SECONDS pass
# first, so a state that never comes fails the caller instead of hanging it. Sourced by lib.sh
# and by the benchmarks in bench/launcher.
wait_until() {
  local limit=$1 what=$2
  local deadline=$((SECONDS + limit))
  shift 2
  until "$@"; do
    if ((SECONDS >= deadline)); then
      echo "FAIL: $what: not within ${limit}s" >&2
      exit 1
    fi
    sleep 0.2
  done
}
