#!/bin/bash
# The command lines users copy, as written: the sbatch examples of trn-run(1), and every
# `sbatch ... trn-run` and `trn-run ... --plan` line of README.md and docs/*.md (in code spans or
# fenced blocks). Each sbatch example plans (trn-run --plan --json for its node count; its warm-up
# shorter than its run), and each trn-run --plan line runs to exit 0 on this machine, which is no
# compute node. Placeholders are filled in: PROFILE -> bert_pretrain, N -> 16, K -> 1, DIR -> a
# folder; a line naming an earlier run (--resume, RUN_DIR, --calibrate) is skipped.
# usage: man_examples_cli_test.sh BIN_DIR MAN_PAGE [MARKDOWN...]
set -u
bin=$(cd "$1" && pwd)
page=$2
shift 2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Nothing of this machine's own Slurm: planned for the compute nodes, as on a head node.
clean=(env -u SLURM_JOB_ID -u SLURM_CONF PATH="$bin:/usr/bin:/bin")

# The .EX blocks, roff escapes removed and continued lines joined: one command per line.
man_examples=$(awk '/^\.EX/{on=1; next} /^\.EE/{on=0} on' "$page" | sed -e 's/\\-/-/g' -e 's/\\e$/\\/' |
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
# Markdown: fenced lines and code spans, comments dropped.
markdown_examples=$(for file in "$@"; do
  awk '/^```/{on=!on; next} on' "$file" | sed 's/  *#.*$//'
  grep -oE '`[^`]+`' "$file" | tr -d '`'
done)

filled() {  # the line's placeholders filled in
  sed -e 's/PROFILE/bert_pretrain/g' -e 's/\bN\b/16/g' -e 's/\bK\b/1/g' -e "s#\bDIR\b#$work#g" <<<"$1"
}

checked=0
while read -r line; do
  [[ $line =~ ^sbatch\ .*--nodes=([0-9]+)\ trn-run\ (.*)$ ]] || continue
  nodes=${BASH_REMATCH[1]}
  read -r -a args <<<"$(filled "${BASH_REMATCH[2]}")"
  [[ " ${args[*]} " == *" --resume "* || " ${args[*]} " == *RUN_DIR* ]] && continue  # needs an earlier run
  plan=$("${clean[@]}" trn-run "${args[@]}" --nodes "$nodes" --plan --json 2>"$work/err") ||
    { fail "'$line' does not plan: $(cat "$work/err")"; continue; }
  read -r steps warmup < <(/usr/bin/python3 -c 'import json,sys; p=json.load(sys.stdin); print(p["steps"], p["warmup"])' <<<"$plan")
  ((warmup < steps)) || fail "'$line': warm-up $warmup is not shorter than the run's $steps steps"
  checked=$((checked + 1))
done <<<"$man_examples
$markdown_examples"
while read -r line; do
  # A command names its profile; `trn-run --plan` alone is prose naming an option.
  [[ $line =~ ^trn-run\ [^-].*--plan ]] || continue
  [[ $line == *RUN_DIR* || $line == *--calibrate* || $line == *--resume* ]] && continue
  read -r -a args <<<"$(filled "${line#trn-run }")"
  (cd "$work" && "${clean[@]}" trn-run "${args[@]}" >"$work/out" 2>"$work/err") ||
    { fail "'$line' as written fails: $(cat "$work/err")"; continue; }
  checked=$((checked + 1))
done <<<"$markdown_examples"
((checked >= 6)) || fail "only $checked examples found in $page $*"
[ "$failures" = 0 ] && echo "ok: $checked examples"
exit "$failures"
