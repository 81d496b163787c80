"""Fuzzes the readers of the trainer's own JSON outputs and of downloaded model JSON:
metrics.read_rows (metrics.jsonl), tasks/plot_sweep.read_sweep (trn-run --sweep's JSON),
weights/hf_folder.read_config (a Hugging Face config.json) and weights/tp_weights.read_index
(tp_weights.json), each on a file from the fuzz bytes.

Contracts, from the callers: read_rows never raises (MetricsFile, plot and the end-of-run report
call it unguarded) and returns JSON objects only, the rows stopping at a line that is not one;
read_sweep, read_config and read_index raise the trainer's errors only, and what they accept
is what plot_sweep, convert and pretrain-lm --init-from use without another check.

Usage: PYTHONPATH=trainer python fuzz_metrics.py [libFuzzer flags] [corpus...]"""

import math
import os
import sys

import atheris
import torch  # noqa: F401 - imported before the instrumented ones: only trn_trainer is instrumented

import harness_common

with atheris.instrument_imports(include=["trn_trainer"]):
    from trn_trainer import metrics
    from trn_trainer.errors import TrainerError
    from trn_trainer.outside_files import plain_name
    from trn_trainer.tasks import plot_sweep
    from trn_trainer.weights import hf_folder, tp_weights

WORK = harness_common.scratch()


def number(value, finite=True):
    return type(value) in (int, float) and (math.isfinite(value) or not finite)


def check_rows(data):
    rows = metrics.read_rows(harness_common.write(os.path.join(WORK, "metrics.jsonl"), data))
    assert all(isinstance(r, dict) for r in rows)


def check_sweep(data):
    try:
        doc, rows = plot_sweep.read_sweep(harness_common.write(os.path.join(WORK, "sweep.json"), data))
    except TrainerError:
        return
    assert isinstance(doc, dict) and rows
    for row in rows:  # what plot_sweep draws (matplotlib leaves out NaN and infinities)
        assert all(number(row[key], finite=False) for key in plot_sweep.PLOTTED), row


def check_config(config):
    for key in ("rms_norm_eps", "rope_theta", "initializer_range"):  # what the model computes with
        assert number(getattr(config, key)), (key, getattr(config, key))


def check_hf_config(data):
    harness_common.write(os.path.join(WORK, hf_folder.CONFIG), data)
    try:
        config, raw = hf_folder.read_config(WORK)
    except TrainerError:
        return
    assert isinstance(raw, dict)
    check_config(config)


def check_tp_index(data):
    harness_common.write(os.path.join(WORK, tp_weights.INDEX), data)
    try:
        index, config = tp_weights.read_index(WORK, "--init-from")
    except TrainerError:
        return
    tp_size = index["tensor_parallel"]  # read_all and read_rank use these as they are
    assert type(tp_size) is int and tp_size >= 1 and len(index["shards"]) == tp_size, index
    assert all(plain_name(name, "test") == name for name in index["shards"])
    check_config(config)


CHECKS = (check_rows, check_sweep, check_hf_config, check_tp_index)


def TestOneInput(data):
    if not data:
        return
    with harness_common.NoLeak():
        CHECKS[data[0] % len(CHECKS)](data[1:])


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
