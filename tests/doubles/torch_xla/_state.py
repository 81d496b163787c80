"""What the double counts, and the torch function mode that sees every tensor operation.

Which tensors live on the "device": what `Tensor.to(<device>)` returns (the trainer moves its
model and batches there), what a factory makes with `device=` given (torch.distributed's own
bookkeeping aside), and every result of an operation on one of those. `Tensor.cpu()`,
`host_tensor.copy_(device_tensor)` and anything made or moved with the string "cpu" are host
copies. Reading a device tensor on the host (`item`, `tolist`, `cpu`, `float`, ...) while
operations are pending since the last cut is a mid-graph sync: on a real XLA device it compiles
and runs the partial graph. Host tensors (torch's optimizers keep their step counts there) are
read freely, as on a real device.
"""

import atexit
import collections
import hashlib
import json
import os
import sys
import traceback

import torch
import torch.overrides

_HOST_READS = {torch.Tensor.item, torch.Tensor.tolist, torch.Tensor.cpu, torch.Tensor.numpy,
               torch.Tensor.__float__, torch.Tensor.__int__, torch.Tensor.__bool__}
_MARK = "_torch_xla_double_device"
_NO_COMPUTE = {torch.Tensor.detach, torch.Tensor.view, torch.Tensor.view_as, torch.Tensor.reshape,
               torch.Tensor.requires_grad_, torch.Tensor.detach_, torch.Tensor.to}


def _tensors(obj):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors(item)


def _on_device(obj):
    return any(getattr(t, _MARK, False) for t in _tensors(obj))


def _from_distributed():
    """Whether torch.distributed itself made the call: the tensors it makes for a gloo group's
    collectives (object sizes, pickled objects) are host tensors on a real device too, while
    this double's "device" is the CPU."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("torch.overrides"):
        frame = frame.f_back
    return frame is not None and frame.f_globals.get("__name__", "").startswith("torch.distributed")


def _names_host(device):
    """The string "cpu": code names the host so on a real XLA system too (the double's own device
    is a torch.device, as torch_xla.device() returns one)."""
    return isinstance(device, str) and device.split(":")[0] == "cpu"


def _mark(obj):
    for t in _tensors(obj):
        try:
            setattr(t, _MARK, True)
        except (AttributeError, RuntimeError):
            pass


class _State:
    def __init__(self):
        self.cuts = 0
        self.graphs = 0
        self.all_reduce_calls = 0
        self.mid_graph_syncs = 0
        self.events = []  # in order: "cut", "all_reduce", "all_gather", "reduce_scatter", "sync", ...
        self.sync_sites = collections.Counter()  # "file:function" of the code that read
        self.pending = False  # device operations traced since the last cut
        self.traced = []  # what those operations were: (name, argument shapes and dtypes)
        self.graph_keys = {}  # each distinct graph that ran -> its number, in order of first run
        self.graph_sequence = []  # the number of each graph that ran, in order
        self.in_closure = False
        self.closures = []
        self.stochastic_rounding = os.environ.get("NEURON_RT_STOCHASTIC_ROUNDING_EN")

    def host_read(self):
        if not self.pending or self.in_closure:
            return
        self.mid_graph_syncs += 1
        self.events.append("sync")
        site = "?"
        for frame in reversed(traceback.extract_stack()[:-3]):
            if "torch_xla" not in frame.filename and "/torch/" not in frame.filename:
                site = f"{os.path.basename(frame.filename)}:{frame.name}"
                break
        self.sync_sites[site] += 1

    def trace(self, name, args):
        """An operation traced into the pending graph: its name and its tensors' shapes and
        dtypes, which (with the order) is what makes a graph the compiler has seen or a new one."""
        self.traced.append((name, tuple((tuple(t.shape), str(t.dtype)) for t in _tensors(args))))
        self.pending = True

    def collective(self, kind, groups=None, args=(), detail=""):
        """A collective traced into the graph (kind: "all_reduce", "all_gather", "reduce_scatter")
        over `groups`; `detail` names what else makes it another operation of the graph (a
        reduce-scatter's reduce type, dimension, shard count, scale and layout pinning)."""
        self.events.append(kind)
        self.trace(f"{kind} {groups}" + (f" {detail}" if detail else ""), args)

    def cut(self):
        self.cuts += 1
        self.graphs += self.pending  # a cut with nothing traced since the last one runs nothing
        if self.pending:
            key = tuple(self.traced)
            number = self.graph_keys.setdefault(key, len(self.graph_keys))
            self.graph_sequence.append(number)
        self.traced = []
        self.events.append("cut")
        self.pending = False
        closures, self.closures = self.closures, []
        if closures:
            self.events.append("closures")
        self.in_closure = True
        try:
            for fn, args in closures:
                fn(*args)
        finally:
            self.in_closure = False

    def write(self):
        where = os.environ.get("TORCH_XLA_DOUBLE_STATS")
        if not where:
            return
        ordinal = os.environ.get("NEURON_PJRT_PROCESS_INDEX", os.environ.get("RANK", "0"))
        with open(os.path.join(where, f"{ordinal}.json"), "w") as f:
            json.dump({"cuts": self.cuts, "graphs": self.graphs, "distinct_graphs": len(self.graph_keys),
                       "graph_sequence": self.graph_sequence,
                       # What each distinct graph was, comparable between processes: SPMD ranks
                       # must compile the same graphs (replica groups included).
                       "graph_digests": [hashlib.sha256(repr(key).encode()).hexdigest()[:16]
                                         for key in self.graph_keys],
                       "all_reduce_calls": self.all_reduce_calls,
                       "mid_graph_syncs": self.mid_graph_syncs, "events": self.events,
                       "sync_sites": dict(self.sync_sites),
                       # What the runtime would have read when it started.
                       "stochastic_rounding": self.stochastic_rounding}, f)


class _Watch(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        device_input = _on_device(args) or _on_device(kwargs)
        targets = [kwargs.get("device")] + (list(args[1:]) if func is torch.Tensor.to else [])
        # device="cpu", .to("cpu") and host_buffer.copy_(t) make host tensors, whatever the
        # double's device is; from a device tensor they read it, as .cpu() does.
        to_host = any(_names_host(t) for t in targets) or \
            (func is torch.Tensor.copy_ and not _on_device(args[0]))
        if (func in _HOST_READS or to_host) and device_input:
            STATE.host_read()
        result = func(*args, **kwargs)
        if func is torch.Tensor.cpu or to_host:
            if func is torch.Tensor.cpu and getattr(result, _MARK, False):
                # The double's device is the CPU, where .cpu() returns the tensor itself; the real
                # one returns a host copy, whose slices trace nothing.
                result = result.clone()
            return result  # a host copy
        if _from_distributed():
            return result  # torch.distributed's own host bookkeeping (gloo groups)
        moved = func is torch.Tensor.to and any(isinstance(t, (torch.device, str)) for t in targets)
        if device_input or moved or kwargs.get("device") is not None:
            _mark(result)
            # Aliases, attributes and shapes of device tensors compute nothing.
            computes = isinstance(result, torch.Tensor) and func not in _NO_COMPUTE and \
                getattr(func, "__name__", "") not in ("__get__", "__set__")
            if computes and not STATE.in_closure:
                STATE.trace(getattr(func, "__name__", str(func)), (args, kwargs))
        return result


STATE = _State()
_Watch().__enter__()  # for the life of the process, as a device that traces everything
atexit.register(STATE.write)
