"""The replica groups of a collective, checked as torch-xla 2.9 and XLA check them (TEST DOUBLE).

torch-xla hands `groups` to XLA unchecked beyond their types (a list of sequences of int, the
pybind layer of `_xla_all_reduce` and friends in torch_xla/csrc/init_python_bindings.cpp).
XLA's HLO verifier checks them when the graph holding the collective compiles
(CheckReplicaGroups in xla/service/hlo_verifier.cc), with the world as the replica count
(torch_xla/csrc/runtime/pjrt_computation_client.cpp sets num_replicas to the global device
count), and torch-xla raises a failed compile as a Python ValueError
(RaisePythonValueErrorOnFailure, torch_xla/csrc/runtime/util.h). The double checks at the call,
so the error names the caller; the real library raises the same ValueError at the next compile
(xm.mark_step or a host read). docs/hardware.md#torch-xla-groups has the links.

What the rule means for `dist.new_group(ranks)`: a mesh of one group of a larger world names
only some replicas, so it fails on every rank that uses it.
"""

import numbers


def parse(groups):
    """`groups` as a list of lists of int (None or [] is one group of every replica), or
    TypeError as the binding raises for another shape."""
    if groups is None:
        return []
    if not isinstance(groups, list):
        raise TypeError(f"replica groups must be a list of lists of int, not {type(groups).__name__}: "
                        f"{groups!r}")
    parsed = []
    for group in groups:
        try:
            members = list(group)
        except TypeError:
            raise TypeError(f"a replica group must be a sequence of int, not {type(group).__name__}: "
                            f"{groups!r}") from None
        for member in members:
            if isinstance(member, bool) or not isinstance(member, numbers.Integral):
                raise TypeError(f"a replica id must be an int, not {type(member).__name__}: {groups!r}")
        parsed.append([int(m) for m in members])
    return parsed


def _text(kind, groups):
    return f"{kind}, replica_groups={{{','.join('{' + ','.join(map(str, g)) + '}' for g in groups)}}}"


def verify(kind, groups, replica_count, uniform):
    """XLA's CheckReplicaGroups: every replica 0..n-1 named exactly once, no empty group, n the
    replica count (unless that is 1), and - except for all-reduce - groups of one size."""
    if not groups:
        return
    seen = set()
    for group in groups:
        if not group:
            raise ValueError(f"Instruction cannot have an empty replica group: {_text(kind, groups)}")
        for replica in group:
            if replica in seen:
                raise ValueError(f"Replica {replica} is repeated in instruction's replica-groups: "
                                 f"{_text(kind, groups)}")
            seen.add(replica)
    for replica in range(len(seen)):
        if replica not in seen:
            raise ValueError(f"Replica {replica} is not named in instruction's replica-groups: "
                             f"{_text(kind, groups)}")
    if replica_count != 1 and len(seen) != replica_count:
        raise ValueError(f"In kCrossReplica mode, replica groups should contain {replica_count} replicas, "
                         f"but found {len(seen)}: {_text(kind, groups)}")
    if uniform and any(len(g) != len(groups[0]) for g in groups):
        raise ValueError(f"Replica groups expected to be of uniform size: {_text(kind, groups)}")


def group_of(groups, ordinal, replica_count):
    """The replicas `ordinal` shares the collective with, in the group's order (a gather's
    order); every replica when `groups` is empty."""
    for group in groups:
        if ordinal in group:
            return group
    return list(range(replica_count))
