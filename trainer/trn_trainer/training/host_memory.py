"""What this machine's memory can hold, asked before a model is built: a model too large is one
error with the numbers, not a process that grows until the kernel kills it."""

from ..errors import UsageError

GIB = 1 << 30


def available_bytes(meminfo="/proc/meminfo"):
    """MemAvailable (the kernel's estimate of what can be allocated without swapping), or None
    where /proc/meminfo does not say."""
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_fits(needed, what, fix, available=None):
    """UsageError when `needed` bytes exceed what the machine has available; `what` says what
    needs them, `fix` what to do."""
    have = available_bytes() if available is None else available
    if have is not None and needed > have:
        raise UsageError(f"{what} needs about {needed / GIB:.1f} GiB of this machine's memory, which has "
                         f"{have / GIB:.1f} GiB available: {fix}")
