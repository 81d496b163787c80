#!/bin/bash
# The sbatch examples of trn-run(1) plan as printed: each one's plan (trn-run --plan --json for
# its node count) succeeds, and its warm-up is shorter than its run.
# usage: man_examples_cli_test.sh BIN_DIR MAN_PAGE
set -u
bin=$1
page=$2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# The .EX blocks, roff escapes removed and continued lines joined: one command per line.
examples=$(awk '/^\.EX/{on=1; next} /^\.EE/{on=0} on' "$page" | sed -e 's/\\-/-/g' -e 's/\\e$/\\/' |
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
checked=0
err=$(mktemp)
while read -r line; do
  [[ $line =~ ^sbatch\ .*--nodes=([0-9]+)\ trn-run\ (.*)$ ]] || continue
  nodes=${BASH_REMATCH[1]}
  read -r -a args <<<"${BASH_REMATCH[2]}"
  [[ " ${args[*]} " == *" --resume "* ]] && continue  # needs an earlier run
  plan=$(env -u SLURM_JOB_ID "$bin/trn-run" "${args[@]}" --nodes "$nodes" --instance-type trn1.32xlarge \
    --plan --json 2>"$err") || { fail "'$line' does not plan: $(cat "$err")"; continue; }
  read -r steps warmup < <(/usr/bin/python3 -c 'import json,sys; p=json.load(sys.stdin); print(p["steps"], p["warmup"])' <<<"$plan")
  ((warmup < steps)) || fail "'$line': warm-up $warmup is not shorter than the run's $steps steps"
  checked=$((checked + 1))
done <<<"$examples"
((checked >= 2)) || fail "only $checked sbatch examples found in $page"
rm -f "$err"
[ "$failures" = 0 ] && echo "ok: $checked examples"
exit "$failures"
