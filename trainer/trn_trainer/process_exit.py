"""A command's exit without the interpreter's teardown (docs/architecture.md#trainer-exit).

Tearing down an interpreter that imported torch frees every module and object one by one: about
1 s of CPU per process, 1.5 to 2 s with torch.distributed.checkpoint imported, paid by every
rank of every step after its work is done. Each command closes its own files, writers and
process group, so the exit keeps what of the teardown matters - non-daemon threads finished
(with the executors' own shut-down), atexit handlers run, stdout and stderr flushed - and ends
the process with os._exit.
"""

import atexit
import os
import sys
import threading


def exit_without_teardown(code):
    # What Py_FinalizeEx does first: threading._shutdown joins the non-daemon threads after
    # telling concurrent.futures' idle workers to stop (a plain join would wait on them forever).
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or gone pipe: nothing more can reach it
            pass
    os._exit(code)
