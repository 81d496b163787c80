"""How a trn_trainer process ends (docs/architecture.md#trainer-exit): without the interpreter's
teardown, but with what of it a command's results depend on."""

import subprocess
import textwrap

from trainer_testlib import PYTHON, child_env

ENDING = textwrap.dedent("""
    import atexit, concurrent.futures, sys, threading, time
    from trn_trainer.process_exit import exit_without_teardown

    folder = sys.argv[1]

    left_open = open(folder + "/left-open", "w")
    left_open.write("flushed only when the interpreter frees the file object")

    def write_late():
        time.sleep(0.5)
        open(folder + "/thread-finished", "w").close()

    threading.Thread(target=write_late).start()  # not a daemon: a normal exit waits for it
    pool = concurrent.futures.ThreadPoolExecutor(1)
    pool.submit(int).result()  # its worker now waits idle for more work, never shut down
    atexit.register(lambda: open(folder + "/atexit-ran", "w").close())
    sys.stdout.write("the last words, not flushed")
    exit_without_teardown(3)
""")


def test_threads_atexit_and_stdout_are_kept_and_the_teardown_skipped(tmp_path):
    env = child_env()
    env.pop("PYTHONUNBUFFERED", None)  # stdout to a pipe is block-buffered, as under srun --output
    done = subprocess.run([PYTHON, "-c", ENDING, str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "the last words, not flushed"
    assert (tmp_path / "thread-finished").exists()  # waited for, as the interpreter would
    assert (tmp_path / "atexit-ran").exists()
    # The module's objects were never freed one by one: a file it left open kept its buffer
    # (docs/architecture.md#trainer-exit: the trainer leaves none open).
    assert (tmp_path / "left-open").read_text() == ""
