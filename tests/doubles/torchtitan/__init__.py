"""torchtitan - TEST DOUBLE of TorchTitan's launch contract (`python3 -m torchtitan.train`), for
trn-slurm's tests only: tests put tests/doubles on PYTHONPATH, product code never fakes it.

TorchTitan does not run on a machine without an accelerator (its device type falls back to
"cuda", torchtitan/tools/utils.py), so the trainer itself cannot be tested here; what trn-run
owes it can. See train.py.
"""
