#!/usr/bin/env bash
# What the tools print, held against recorded files (tests/unit/run/recorded_outputs/): the
# --help of every tool, and trn-run's --plan and --plan --json for every bundled profile, both
# planned for nodes away from here (--nodes) and for this node as one instance (--launcher local
# on a recorded trn1.32xlarge tree). A refactoring that changes none of them passes; a change of
# behaviour shows as a diff. After an intended change: record again with --record and read the
# diff before committing it.
# usage: recorded_outputs_cli_test.sh BIN_DIR SOURCE_DIR [--record]
set -uo pipefail
bin=$1
source_dir=$2
record=${3:-}
recorded=$source_dir/tests/unit/run/recorded_outputs
fixture=$source_dir/tests/fixtures/trn1.32xlarge
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Nothing of the machine's own: no Slurm job or controller (a sinfo that fails as it does without
# one), no launcher variables, no TRN_ settings, a fixed home and output root.
mkdir "$work/bin" "$work/home"
printf '#!/bin/sh\necho "sinfo: error: Could not establish a configuration source" >&2\nexit 1\n' \
  >"$work/bin/sinfo"
chmod +x "$work/bin/sinfo"
clean=(env -i PATH="$work/bin:/usr/local/bin:/usr/bin:/bin" HOME="$work/home" LANG=C.UTF-8 COLUMNS=100)

host=$(hostname)
failures=0
[[ $record == --record ]] && mkdir -p "$recorded"
# check NAME COMMAND...: the command's exit status, stdout and stderr against recorded/NAME.txt.
check() {
  local name=$1
  shift
  local status=0
  (cd "$work" && "${clean[@]}" "$@") >"$work/stdout" 2>"$work/stderr" || status=$?
  {
    echo "exit $status"
    echo "--- stdout"
    cat "$work/stdout"
    echo "--- stderr"
    cat "$work/stderr"
  } | sed -E -e "s#$work#WORK#g" -e "s#$source_dir#SOURCE#g" \
    -e 's#local-[0-9]{8}-[0-9]{6}#local-TIME#g' -e "s#\b$host\b#HOST#g" >"$work/got"
  if [[ $record == --record ]]; then
    cp "$work/got" "$recorded/$name.txt"
  elif ! diff -u "$recorded/$name.txt" "$work/got" >"$work/diff"; then
    echo "FAIL: $name ($*) differs from its recording:" >&2
    head -n 40 "$work/diff" >&2
    failures=$((failures + 1))
  fi
}

for tool in trn-run trn-compile trn-topo trn-cache trn-cluster trn-health; do
  check "help-$tool" "$bin/$tool" --help
done
for profile_file in "$source_dir"/launcher/profiles/*.yaml; do
  profile=$(basename "$profile_file" .yaml)
  check "plan-$profile" "$bin/trn-run" "$profile" --plan --nodes 4
  check "plan-json-$profile" "$bin/trn-run" "$profile" --plan --nodes 4 --json
  check "plan-local-$profile" "$bin/trn-run" "$profile" --plan --launcher local --fsroot "$fixture"
  check "plan-local-json-$profile" "$bin/trn-run" "$profile" --plan --json --launcher local \
    --fsroot "$fixture"
done
check sweep-bert_pretrain "$bin/trn-run" bert_pretrain --plan --nodes 16 --sweep 1,2,4,8,16
check sweep-json-llama2_7b "$bin/trn-run" llama2_7b --plan --nodes 4 --sweep 1,2,4,8 --json
check compile-plan-bert_tiny "$bin/trn-compile" bert_tiny --plan --nodes 2
# A plan whose workers would not fit their device memory: one line naming the fix, exit 2.
check plan-llama2_7b-over-device-memory "$bin/trn-run" llama2_7b --plan --nodes 4 --set seq_len=32768
# Trainium3: llama3_8b's workers on each type, one per logical NeuronCore at LNC 2.
for type in trn3.48xlarge trn3p.48xlarge trn3e.24xlarge trn3pd98.3xlarge; do
  check "plan-llama3_8b-$type" "$bin/trn-run" llama3_8b --plan --nodes 4 --instance-type "$type"
done
# A logical NeuronCore config the type does not offer, and a tensor-parallel degree that does not
# divide a node's logical NeuronCores: one line naming the input and the fix, exit 2.
check plan-llama3_8b-lnc2-on-trn1 "$bin/trn-run" llama3_8b --plan --nodes 4 \
  --instance-type trn1.32xlarge
check plan-llama2_7b-lnc2-env-on-trn1 env NEURON_LOGICAL_NC_CONFIG=2 "$bin/trn-run" llama2_7b \
  --plan --nodes 4
check plan-llama3_8b-lnc4-on-trn3 "$bin/trn-run" llama3_8b --plan --nodes 4 \
  --instance-type trn3.48xlarge --set env.NEURON_LOGICAL_NC_CONFIG=4
check plan-llama3_70b-tp8-on-trn3pd98 "$bin/trn-run" llama3_70b --plan --nodes 4 \
  --instance-type trn3pd98.3xlarge

[[ $record == --record ]] && { echo "recorded into $recorded"; exit 0; }
[[ $failures -eq 0 ]] || { echo "$failures output(s) differ from their recordings" >&2; exit 1; }
echo "every output as recorded"
