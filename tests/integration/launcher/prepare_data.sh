#!/usr/bin/env bash
# Fixture: BERT shards from the fortunes corpus, shared by the launcher tests.
source "$(dirname "$0")/../lib.sh"
PYTHONPATH="$TRN_SOURCE_DIR/trainer" "$python" -m trn_trainer prepare-data \
  --input /usr/share/games/fortunes --output "$(test_data_dir)" --seq-len 128 --num-shards 4 \
  --dupe-factor 1 --name fortunes --force | tail -n 1
