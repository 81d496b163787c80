"""`python3 -m trn_trainer [COMMAND ...] --help` prints, byte for byte, what tests/trainer/golden/help/
holds: the command line does not change when the modules behind it move. After a deliberate change
to the options, record them again with `scripts/python tests/trainer/test_trainer_cli_help.py --record`
(the same invocation as the test's)."""

import os
import re
import subprocess
import sys

import pytest

from trainer_testlib import DIST_VARS, PYTHON, TRAINER

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "help")
COMMANDS = ((), ("pretrain",), ("finetune",), ("prepare-data",), ("pretrain-lm",), ("prepare-lm",),
            ("convert",), ("convert", "merge"), ("convert", "split"), ("plot",), ("plot-sweep",))


def golden_path(command):
    return os.path.join(GOLDEN, "-".join(command or ("trn_trainer",)) + ".txt")


def help_output(command):
    """stdout of `python3 -m trn_trainer COMMAND --help` at 100 columns, without TRN_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRN_") and k not in DIST_VARS}
    env.update(PYTHONPATH=TRAINER, COLUMNS="100")
    done = subprocess.run([PYTHON, "-m", "trn_trainer", *command, "--help"], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "top")
def test_help_unchanged(command):
    with open(golden_path(command), "rb") as f:
        assert help_output(command).decode() == f.read().decode()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "top")
def test_each_default_said_once(command):
    """No option's help says its default twice ("(default: train one ...) (default: None)"), and
    none says "(default: None)" for an option that has none."""
    text = help_output(command).decode()
    options = re.split(r"\n  (?=-)", text)
    for option in options:
        flat = " ".join(option.split())
        assert "(default: None)" not in flat, flat
        assert flat.count("default:") <= 1, flat


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    os.makedirs(GOLDEN, exist_ok=True)
    for c in COMMANDS:
        with open(golden_path(c), "wb") as f:
            f.write(help_output(c))
        print(f"wrote {golden_path(c)}")
