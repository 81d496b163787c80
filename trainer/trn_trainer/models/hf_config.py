"""What the BERT and Llama configurations share: a frozen dataclass whose field names are Hugging
Face's, so a configuration moves to and from a config.json, and sizes chosen by name (--model)."""

import dataclasses

from ..errors import UsageError


class HfConfig:
    """The base of a @dataclasses.dataclass(frozen=True) model configuration."""

    def to_dict(self):
        return dataclasses.asdict(self)


def named_size(sizes, name, kind):
    """The row of `sizes` called `name`; a UsageError naming the choices when there is none."""
    if name not in sizes:
        raise UsageError(f"--model {name!r}: unknown {kind} size; choose one of {', '.join(sizes)}")
    return sizes[name]
