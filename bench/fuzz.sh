#!/usr/bin/env bash
# Every fuzz harness for SECONDS (default 600: the goal is no crash, hang or leak in 10 minutes
# per harness): the libFuzzer harnesses over core/ (built here with the fuzz preset: clang,
# ASan/UBSan) and the atheris harnesses over the trainer. One harness at a time, so that each
# gets a core; a finding fails the run and its input's path is printed (docs/fuzzing.md).
#   bench/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
scripts/bootstrap
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
status=0
tests/fuzz/run_core.sh build/fuzz "$seconds" || status=1
tests/fuzz/run_trainer.sh "$seconds" || status=1
exit "$status"
