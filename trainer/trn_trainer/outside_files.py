"""Reading files that come from outside the process (checkpoint shards and manifests, weights):
regular files only, opened without blocking and refused by their size before a byte is read, so
that a FIFO never hangs a reader and a link to /dev/zero never fills memory; names taken from
such a file only as plain names inside their folder; and JSON from such a file parsed with one
kind of error."""

import json
import os
import stat


class UnreadableFile(ValueError):
    """The file is there but cannot be what its reader expects; the message names it."""


def read_regular_file(path, max_bytes, what="file"):
    """The bytes of `path`, a regular file of at most `max_bytes`. FileNotFoundError when it is
    missing; UnreadableFile naming `what` and the path when it is a FIFO, device or folder, or
    larger."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{what} {path} is not a regular file (a FIFO, device or folder)")
        if info.st_size > max_bytes:
            raise UnreadableFile(f"{what} {path} has {info.st_size} bytes, more than the {max_bytes} "
                                 "it may have")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:  # grew while it was read
            raise UnreadableFile(f"{what} {path} has more than the {max_bytes} bytes it may have")
        return data
    finally:
        os.close(fd)


def plain_name(name, what):
    """`name` when it names a file inside its folder (no folder part, not . or ..); else
    UnreadableFile naming `what`."""
    if (not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\0" in name
            or os.path.basename(name) != name):
        raise UnreadableFile(f"{what} names {name!r}, which is not a file inside its folder")
    return name


def json_loads(data):
    """json.loads(data) (bytes or str); ValueError for every way outside JSON can be bad: not
    JSON, not UTF-8, a whole number of more digits than Python converts, or nested deeper than
    the parser recurses (json raises RecursionError for that one)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def output_folder_problem(output):
    """Why `output` cannot be a folder to write into ("is a file", "lies under the file F"), or
    None when it is a folder or a path whose nearest existing part is one (then it is created)."""
    existing = os.path.abspath(output)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if os.path.isdir(existing):
        return None
    return "is a file" if existing == os.path.abspath(output) else f"lies under the file {existing}"
