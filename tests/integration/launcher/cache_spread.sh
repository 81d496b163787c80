#!/usr/bin/env bash
# The shared compile-cache tier read once and spread node to node (docs/hardware.md#cache-spread):
# `srun trn-cache spread` on 4 nodes, each with a node-local tier of its own, leaves every tier
# with the shared tier's complete entries, byte for byte, while only node 0 reads the shared
# tier; and trn-run's first pull on 2 nodes spreads (the shared tier's bytes read once in all).
source "$(dirname "$0")/../lib.sh"
make_scratch
cd "$scratch"
version=neuronxcc-2.14.213.0+013d129b
make_entry() {  # make_entry ROOT MODULE NEFF_MIB: a complete entry whose neff is NEFF_MIB of noise
  local dir="$1/$version/$2"
  mkdir -p "$dir"
  head -c "$(($3 * 1048576))" /dev/urandom >"$dir/model.neff"
  echo hlo >"$dir/model.hlo_module.pb"
  echo '{}' >"$dir/compile_flags.json"
  : >"$dir/model.done"
}
make_entry "$scratch/shared" MODULE_1+aa 24
make_entry "$scratch/shared" MODULE_2+aa 1
make_entry "$scratch/shared" MODULE_3+aa 0
mkdir -p "$scratch/shared/$version/MODULE_4+aa" && echo failed >"$scratch/shared/$version/MODULE_4+aa/model.log"
shared_bytes=$(find "$scratch/shared/$version"/MODULE_[123]* -type f -printf '%s\n' | awk '{s += $1} END {print s}')

cat >"$scratch/spread-node.sh" <<SCRIPT
#!/bin/sh
exec trn-cache spread --from "$scratch/shared" --to "$scratch/local/\$SLURM_NODEID" --json >"$scratch/spread-\$SLURM_NODEID.json"
SCRIPT
chmod +x "$scratch/spread-node.sh"
job=$(slurm_with_tools sbatch --parsable --nodes=4 -D "$scratch" -o "$scratch/spread.out" \
  --wrap "srun --ntasks-per-node=1 $scratch/spread-node.sh")
[[ $(job_end_state "$job") == COMPLETED ]] || { cat "$scratch/spread.out"; fail "the spread job failed"; }
report() { json_field "$scratch/spread-$1.json" "$2"; }
for id in 0 1 2 3; do
  for module in MODULE_1+aa MODULE_2+aa MODULE_3+aa; do
    for file in model.neff model.done model.hlo_module.pb compile_flags.json; do
      cmp -s "$scratch/shared/$version/$module/$file" "$scratch/local/$id/$version/$module/$file" ||
        fail "node $id's $module/$file differs from the shared tier's"
    done
  done
  [[ ! -e $scratch/local/$id/$version/MODULE_4+aa ]] || fail "node $id got the failed entry"
  expect_eq "$(ls -A "$scratch/local/$id")" "$version" "node $id's tier holds the entries alone (no inbox left)"
  expect_eq "$(report $id "d['copied']['entries']")" 3 "node $id's copied entries"
  expect_eq "$(report $id "d['spread']['fallback']")" None "node $id's fallback"
  expect_eq "$(report $id "d['spread']['shared_tier_bytes']")" "$([[ $id == 0 ]] && echo "$shared_bytes" || echo 0)" "bytes node $id read from the shared tier"
  expect_eq "$(report $id "d['spread']['received_bytes']")" "$([[ $id == 0 ]] && echo 0 || echo "$shared_bytes")" "bytes node $id received from its parent"
done
# The tree of fanout 2 in node-id order: 0 serves 1 and 2, 1 serves 3.
hosts=($(slurm scontrol show hostnames "$(slurm scontrol show job -o "$job" | grep -o ' NodeList=[^ ]*' | cut -d= -f2)"))
expect_eq "$(report 0 "' '.join(d['spread']['children'])")" "${hosts[1]} ${hosts[2]}" "node 0's children"
expect_eq "$(report 3 "d['spread']['parent']")" "${hosts[1]}" "node 3's parent"
expect_eq "$(report 1 "' '.join(d['spread']['children'])")" "${hosts[3]}" "node 1's children"

# trn-run's first pull on two nodes spreads: the shared tier is read once, by one node.
job=$(slurm_with_tools env NEURON_COMPILE_CACHE_URL="$scratch/run-local" sbatch --parsable --exclusive --nodes=2 -D "$scratch" \
  trn-run bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --cache-shared "$scratch/shared" --steps 2 --set warmup=2)
[[ $(job_end_state "$job") == COMPLETED ]] || { tail -n 30 "$scratch/trn-run-$job.out"; fail "trn-run failed"; }
results="$scratch/runs/bert_tiny-$job/results.json"
expect_eq "$(json_field "$results" "d['phases']['cache_pull']['spread']")" True "trn-run's pull spread"
expect_eq "$(json_field "$results" "d['phases']['cache_pull']['shared_tier_bytes']")" "$shared_bytes" "bytes read from the shared tier by trn-run's pull, all nodes together"
expect_eq "$(json_field "$results" "sorted(n['spread']['received_bytes'] for n in d['phases']['cache_pull']['nodes'])")" "[0, $shared_bytes]" "bytes each node received"
expect_eq "$("$TRN_BUILD_DIR/bin/trn-cache" status --root "$scratch/run-local" --json | json_field /dev/stdin "d['done']['entries']")" 3 "entries in the local tier after trn-run"
echo "ok: $shared_bytes bytes spread to 4 nodes in $(report 3 "round(d['spread']['seconds'], 2)") s (node 3)"
