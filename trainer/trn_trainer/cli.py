"""Command line: pretrain, finetune, prepare-data, pretrain-lm, prepare-lm, convert, plot, plot-sweep. Exit
statuses are listed in errors.py; each command's options are in tasks/options.py."""

import argparse
import errno
import importlib
import sys
import threading

from . import __version__
from .errors import EXIT_CHECKPOINT, EXIT_INTERNAL, EXIT_OK, EnvironmentSetupError, TrainerError
from .tasks import options

# The third-party modules each command imports (Debian names them python3-<module>), imported
# here first so that a missing or broken one is one clear error, not a traceback from inside.
REQUIRED_MODULES = {"pretrain": ("numpy", "h5py", "torch"), "prepare-data": ("numpy", "h5py"),
                    "prepare-lm": ("numpy", "h5py", "sentencepiece"),
                    "pretrain-lm": ("numpy", "h5py", "torch"), "finetune": ("numpy", "torch"),
                    "convert": ("numpy", "torch"),
                    "plot": ("matplotlib",), "plot-sweep": ("matplotlib",)}

# What runs each command: a module, imported only once require_modules let it, and its function
# of the parsed arguments.
RUNNERS = {"pretrain": ("trn_trainer.tasks.pretrain", "pretrain"),
           "prepare-data": ("trn_trainer.data.prepare", "prepare_data"),
           "finetune": ("trn_trainer.tasks.finetune", "finetune"),
           "pretrain-lm": ("trn_trainer.tasks.pretrain_lm", "pretrain_lm"),
           "prepare-lm": ("trn_trainer.data.prepare_lm", "prepare_lm"),
           "convert": ("trn_trainer.tasks.convert", "convert"),
           "plot": ("trn_trainer.tasks.plot", "plot_command"),
           "plot-sweep": ("trn_trainer.tasks.plot_sweep", "plot_sweep_command")}


def require_modules(command):
    for name in REQUIRED_MODULES[command]:
        try:
            importlib.import_module(name)
        except ImportError as e:
            why = (str(e).splitlines() or [type(e).__name__])[0]  # numpy's own message has many lines
            raise EnvironmentSetupError(
                f"{command} needs the Python module {name}, which {sys.executable} cannot import "
                f"({why}); install it (apt-get install python3-{name}, or pip install {name}) or run "
                "with a Python that has it") from None


def build_parser():
    parser = argparse.ArgumentParser(prog="python3 -m trn_trainer",
                                     description="BERT and Llama training for Trainium, CUDA and CPU")
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (options.add_pretrain, options.add_finetune, options.add_prepare_data, options.add_pretrain_lm,
                options.add_prepare_lm, options.add_convert, options.add_plots):
        add(sub)
    return parser


# A file system with no room left: the user's storage (ENOSPC, or EDQUOT for a quota).
FULL_FILE_SYSTEM = (errno.ENOSPC, errno.EDQUOT)


def is_full_file_system(error):
    return isinstance(error, OSError) and error.errno in FULL_FILE_SYSTEM


def quiet_full_file_system_in_threads(previous=threading.excepthook):
    """A writer thread (TensorBoard's) that stops on a full file system hands its error to the
    main thread at its next write, which reports it in one line: no thread traceback before it."""
    def hook(info):
        if not is_full_file_system(info.exc_value):
            previous(info)
    threading.excepthook = hook


def main(argv=None):
    args = build_parser().parse_args(argv)
    quiet_full_file_system_in_threads()
    try:
        require_modules(args.command)
        module, function = RUNNERS[args.command]
        getattr(importlib.import_module(module), function)(args)
    except TrainerError as e:
        print(f"trn_trainer: error: {e}", file=sys.stderr, flush=True)
        return e.exit_code
    except KeyboardInterrupt:
        print("trn_trainer: interrupted", file=sys.stderr, flush=True)
        return 130
    except OSError as e:
        if not is_full_file_system(e):
            return _internal_error()
        # Where a run keeps its files is full: the user's storage, not a bug. The writes that
        # can fail alone (checkpoints, the node-local tier) were warnings; this one the run needs.
        where = e.filename or getattr(args, "output", None) or "the output"
        print(f"trn_trainer: error: {where}: {e.strerror}: its file system is full; free space on it "
              "(the checkpoints committed there are kept), then run the same command again to resume "
              "from the newest", file=sys.stderr, flush=True)
        return EXIT_CHECKPOINT
    except Exception:  # noqa: BLE001 - anything else is a bug: show the traceback
        return _internal_error()
    return EXIT_OK


def _internal_error():
    import traceback

    traceback.print_exc()
    return EXIT_INTERNAL
