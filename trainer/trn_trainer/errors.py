"""Errors the command line turns into one clear message and a documented exit status."""

# Exit statuses of `python3 -m trn_trainer ...`, for people and scripts. trn-run does not read
# them: it sees only srun's status, then reads each rank's first error (a traceback, or a line such
# as `trn_trainer: error: ...`) to tell a user error from a node failure.
EXIT_OK = 0
EXIT_INTERNAL = 1  # an unexpected failure: a Python traceback was printed
EXIT_USAGE = 2  # bad command line or inconsistent settings (argparse uses 2 as well)
EXIT_DATA = 3  # no shards, unreadable or malformed HDF5, bad corpus or vocabulary
EXIT_CHECKPOINT = 4  # a checkpoint that belongs to another model or optimizer, or one the run
#                     could not write: its last, or any write once the run directory is full
EXIT_ENVIRONMENT = 5  # incomplete RANK/WORLD_SIZE/MASTER_* environment, device problem or a
#                      Python module (torch, numpy, h5py, matplotlib) that cannot be imported
EXIT_DIVERGED = 6  # the loss or the weights stopped being finite (learning rate too high)


class TrainerError(Exception):
    """A problem with the user's input: the message names the input, the problem and the fix.
    Each kind of problem is a subclass that names its exit status."""

    exit_code = EXIT_USAGE

    def __init_subclass__(cls, exit_code, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.exit_code = exit_code


class UsageError(TrainerError, exit_code=EXIT_USAGE):
    pass


class DataError(TrainerError, exit_code=EXIT_DATA):
    pass


class CheckpointError(TrainerError, exit_code=EXIT_CHECKPOINT):
    pass


class EnvironmentSetupError(TrainerError, exit_code=EXIT_ENVIRONMENT):
    pass


class DivergedError(TrainerError, exit_code=EXIT_DIVERGED):
    pass
