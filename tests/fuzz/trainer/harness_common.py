"""What every trainer fuzz harness shares: the import path, one scratch folder per process
(files are overwritten per input, so the disk does not grow), and the checks that make a leak a
crash: an input must leave no file descriptor open behind it."""

import atexit
import os
import shutil
import sys
import tempfile
import warnings

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "trainer"))

# numpy and h5py warn about odd files; warnings are not findings and would flood the log.
warnings.simplefilter("ignore")


def scratch():
    """A folder of this process, removed at exit."""
    folder = tempfile.mkdtemp(prefix="trn-fuzz-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def clear(folder):
    """Every file of `folder` removed (the files of the previous input)."""
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def open_fds():
    return len(os.listdir("/proc/self/fd"))


class NoLeak:
    """`with NoLeak():` around a reader: AssertionError when it leaves a descriptor open."""

    def __enter__(self):
        self.before = open_fds()

    def __exit__(self, *exc):
        after = open_fds()
        if exc[0] is None and after > self.before:
            raise AssertionError(f"the reader left {after - self.before} file descriptor(s) open")
        return False
