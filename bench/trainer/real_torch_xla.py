#!/usr/bin/env python3
"""The trainer's XLA path on real torch-xla (PJRT_DEVICE=CPU), not the double: runs
`trn_trainer pretrain --device xla` in this process and records, after every optimizer step,
torch_xla.debug.metrics' counts of graph compilations, graph executions and device-to-host
transfers. Writes them as JSON lines to $TRN_XLA_METRICS and prints the per-step deltas.

What the trainer must show (docs/architecture.md#torch-xla-environment): no compilation after the
second step (the graphs are static), one execution per micro-step plus one for the reduction and
optimizer step, and at most one host transfer per step, the step's loss read after its graph.
Usage (in an environment with torch 2.9.0 and torch-xla 2.9.0):
  PJRT_DEVICE=CPU TRN_XLA_METRICS=FILE PYTHONPATH=trainer PYTHON bench/trainer/real_torch_xla.py \
      pretrain --device xla --dtype fp32 ...
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "trainer"))

import torch_xla.debug.metrics as met  # noqa: E402

from trn_trainer.cli import main  # noqa: E402
from trn_trainer.tasks import pretrain_log  # noqa: E402

COUNTS = {"compiles": "CompileTime", "executions": "ExecuteTime", "to_host": "TransferFromDeviceTime"}
_record = pretrain_log.StepLog._record  # every step's row goes through it


def counts():
    return {name: (met.metric_data(metric) or (0,))[0] for name, metric in COUNTS.items()}


def record(self, step, *args):
    read = _record(self, step, *args)
    with open(os.environ["TRN_XLA_METRICS"], "a") as f:
        f.write(json.dumps({"step": step, **counts()}) + "\n")
    return read


if __name__ == "__main__":
    pretrain_log.StepLog._record = record
    status = main(sys.argv[1:])
    with open(os.environ["TRN_XLA_METRICS"]) as f:
        rows = [json.loads(line) for line in f]
    before = {name: 0 for name in COUNTS}
    for row in rows:
        print("step", row["step"], {name: row[name] - before[name] for name in COUNTS})
        before = row
    sys.exit(status)
