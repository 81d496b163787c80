"""Runs `trn_trainer` with the peer-snapshot exchange of step $TRN_SLOW_EXCHANGE_STEP held for
$TRN_SLOW_EXCHANGE_S seconds once a file in $TRN_EXCHANGE_MARK_DIR says this rank began it: a
moment a test can lose a node in (tests/integration/launcher/lost_during_exchange.sh). Only the
first time: a restart that trains the step again exchanges at once."""

import os
import sys
import time

from trn_trainer.checkpoint import tiers
from trn_trainer.cli import main
from trn_trainer.process_exit import exit_without_teardown

STEP = int(os.environ["TRN_SLOW_EXCHANGE_STEP"])
DELAY_S = float(os.environ["TRN_SLOW_EXCHANGE_S"])
MARKS = os.environ["TRN_EXCHANGE_MARK_DIR"]
_give_to_peer = tiers.give_to_peer


def give_to_peer(group, directory, step, entry, peers):
    mark = os.path.join(MARKS, f"step-{step}-rank-{os.environ.get('RANK', 'unknown')}")
    if step == STEP and not os.path.exists(mark):
        open(mark, "w").close()
        time.sleep(DELAY_S)
    return _give_to_peer(group, directory, step, entry, peers)


tiers.give_to_peer = give_to_peer
exit_without_teardown(main(sys.argv[1:]))  # as python -m trn_trainer ends
