"""Runs `trn_trainer` on a file system that takes $TRN_SLOW_WRITE_S seconds to write each
checkpoint shard: storage slower than trn-run's hang deadline, with nothing hung."""

import os
import sys
import time

from trn_trainer.checkpoint import files
from trn_trainer.cli import main
from trn_trainer.process_exit import exit_without_teardown

DELAY_S = float(os.environ["TRN_SLOW_WRITE_S"])
_write_shard = files.write_shard


def write_shard(*args, **kwargs):
    time.sleep(DELAY_S)
    return _write_shard(*args, **kwargs)


files.write_shard = write_shard
exit_without_teardown(main(sys.argv[1:]))  # as python -m trn_trainer ends
