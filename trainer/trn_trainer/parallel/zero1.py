"""ZeRO-1 over the data-parallel group with one reduce-scatter and one all-gather a step
(docs/llama.md#zero-1), as neuronx-distributed's ZeRO-1 optimizer communicates.

Each data-parallel rank owns whole parameters, assigned as torch's ZeroRedundancyOptimizer
assigns them (largest first, to the rank with the fewest elements so far; the decay group, then
the norms), so checkpoints keep its per-parameter layout. The owned parameters of every rank
are laid out one after another in one flat fp32 vector, each rank's part padded to the largest
part's size S. A step then:
1. flattens the gradients in that order (fp32) and reduce-scatters the vector over the
   data-parallel group: each rank receives the sum of its own part, divided by dp;
2. clips by the global norm from the parts (squares summed over the data-parallel group, the
   tensor-parallel shards' also over the tensor-parallel group, the unsplit ones counted once);
3. steps AdamW on its part alone: fp32 master values, moments and decay mask, each of size S, so
   every rank runs the same operations on the same shapes (one graph on XLA, not one per rank as
   torch's optimizer gives) - decoupled weight decay as torch.optim.AdamW applies it;
4. all-gathers the parts and copies every parameter back from it.
torch's ZeroRedundancyOptimizer instead all-reduces every gradient and then broadcasts every
parameter from its owner, one collective per parameter: about twice the bytes and hundreds of
collectives a step.
"""

import torch
import torch.distributed as dist

from .collectives import all_gather, reduce_scatter
from .llama_shards import split_dim


def partition(params_by_group, dp_size):
    """[rank] -> [group] -> params: torch's ZeroRedundancyOptimizer's greedy assignment."""
    sizes = [0] * dp_size
    owned = [[[] for _ in params_by_group] for _ in range(dp_size)]
    for g, params in enumerate(params_by_group):
        for p in sorted(params, key=lambda t: t.numel(), reverse=True):
            rank = sizes.index(min(sizes))
            owned[rank][g].append(p)
            sizes[rank] += p.numel()
    return owned


class _OwnedState:
    """This rank's AdamW state as torch's optimizer holds it (param_groups over the parameters it
    owns, state[p] of step, exp_avg and exp_avg_sq), the tensors views into the flat ones: what
    checkpoints read and load (checkpoint/llama_state.py, as ZeroRedundancyOptimizer.optim)."""

    def __init__(self, zero):
        self.zero = zero

    @property
    def param_groups(self):
        return self.zero.owned_groups

    @property
    def state(self):
        """The per-parameter views, of host copies of the flat moments: slicing them on an XLA
        device would trace one small graph per parameter into the checkpoint step, and its copy
        to the host would compile and run them there (on the host the copies are the tensors)."""
        z = self.zero
        if not z.adam.state:
            return {}
        moments = z.adam.state[z.part]
        step = moments["step"].reshape(()).to(torch.float32)
        host = {key: moments[key].cpu() for key in ("exp_avg", "exp_avg_sq")}
        return {p: {"step": step, "exp_avg": host["exp_avg"][a:b].view(p.shape),
                    "exp_avg_sq": host["exp_avg_sq"][a:b].view(p.shape)}
                for p, (a, b) in z.owned_ranges.items()}

    def state_dict(self):
        state, groups, position = {}, [], 0
        live = self.state
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                if p in live:
                    state[position] = dict(live[p])
                ids.append(position)
                position += 1
            groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": ids})
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        z = self.zero
        saved = state_dict["state"]
        params = [p for group in self.param_groups for p in group["params"]]
        if not params:
            return
        missing = [i for i in range(len(params)) if i not in saved]
        if missing:
            raise ValueError(f"ZeRO-1 state of {len(missing)} owned parameter(s) missing")
        moments = {"exp_avg": torch.zeros_like(z.part), "exp_avg_sq": torch.zeros_like(z.part)}
        for i, p in enumerate(params):
            a, b = z.owned_ranges[p]
            for key in moments:
                value = saved[i][key]
                if tuple(value.shape) != tuple(p.shape):
                    raise ValueError(f"ZeRO-1 state {key} of shape {tuple(value.shape)} for a parameter "
                                     f"of shape {tuple(p.shape)}")
                moments[key][a:b].copy_(value.reshape(-1))
        # On the host, as torch's AdamW keeps it (not capturable): reading it costs no device sync.
        step = torch.as_tensor(saved[0]["step"], dtype=torch.float32).reshape(()).cpu()
        z.adam.state[z.part] = {"step": step, **moments}


class Zero1AdamW:
    """AdamW with ZeRO-1 over `groups`' data-parallel group. named_params: (name, parameter) of
    what the optimizer steps (the model's, or their fp32 master copies), in the model's order."""

    takes_param_grads = False  # reduce_gradients reads the model's gradients itself

    def __init__(self, named_params, lr, betas, eps, weight_decay, groups):
        self.groups = groups
        self.params = [p for _, p in named_params]
        decay = [p for n, p in named_params if not n.endswith("norm.weight")]
        no_decay = [p for n, p in named_params if n.endswith("norm.weight")]
        owners = partition([decay, no_decay], groups.dp_size)
        self.part_size = max(sum(p.numel() for g in mine for p in g) for mine in owners) or 1
        # The flat vector's layout: (parameter, where it starts), every rank's part in turn; and
        # where this rank's own parameters sit in its part.
        self.order, self.owned_ranges = [], {}
        for rank, mine in enumerate(owners):
            at = 0
            for p in (p for g in mine for p in g):
                self.order.append((p, rank * self.part_size + at))
                if rank == groups.dp_rank:
                    self.owned_ranges[p] = (at, at + p.numel())
                at += p.numel()
        device = self.params[0].device
        # Made on the host and moved (data, no operation for the device to run before the first
        # step). What differs between the ranks is such data: the masks of the part and where it
        # sits in the flat vector. A slice at the rank's offset would put the offset into the
        # graph, and every rank would compile its own.
        self.part = torch.zeros(self.part_size, dtype=torch.float32).to(device).requires_grad_(True)
        mine = self._mine()
        self.decay_mask = self._mask({id(p) for p in decay})[mine].to(device)
        sharded = {id(p) for n, p in named_params if split_dim(n) is not None}
        self.sharded_mask = self._mask(sharded)[mine].to(device)
        self.part_index = torch.arange(mine.start, mine.stop).to(device)
        self.weight_decay = weight_decay
        self.adam = torch.optim.AdamW([self.part], lr=lr, betas=betas, eps=eps, weight_decay=0.0)
        self.owned_groups = [{"params": mine, "lr": lr, "betas": betas, "eps": eps,
                              "weight_decay": wd}
                             for mine, wd in zip(owners[groups.dp_rank], (weight_decay, 0.0))]
        self.optim = _OwnedState(self)
        self._grad = self._buffer = None
        self._part_current = False  # the part is taken from the parameters at the first step

    def _mine(self):
        start = self.groups.dp_rank * self.part_size
        return slice(start, start + self.part_size)

    def _mask(self, ids):
        """1 where the flat vector holds a parameter in `ids`, else 0 (padding too), on the host."""
        return self._flat([torch.full(p.shape, 1.0 if id(p) in ids else 0.0) for p in self.params],
                          device="cpu")

    def _flat(self, tensors, device=None):
        """`tensors` (one per parameter, in self.params' order) as the flat fp32 vector, zero
        padded."""
        by_id = {id(p): t for p, t in zip(self.params, tensors)}
        flat = torch.zeros((self.groups.dp_size * self.part_size,), dtype=torch.float32,
                           device=device or self.params[0].device)
        for p, start in self.order:
            flat[start:start + p.numel()] = by_id[id(p)].reshape(-1).float()
        return flat

    @property
    def param_groups(self):
        return self.adam.param_groups  # the schedule sets lr here

    def reduce_gradients(self, grads, tp, max_norm):
        """The step's gradients (one per parameter, the model's, in self.params' order) summed
        over the data-parallel group into this rank's part, averaged, clipped to `max_norm`
        (0: not clipped). Returns the global gradient norm (a tensor)."""
        if not self._part_current:  # after a checkpoint or --init-from loaded the parameters
            self.refresh_part()
            self._part_current = True
        flat = self._flat(grads)
        part = torch.empty(self.part_size, dtype=torch.float32, device=flat.device)
        reduce_scatter(part, flat, self.groups.dp_group)
        part.div_(self.groups.dp_size)
        squares = part * part
        sums = torch.stack([(squares * self.sharded_mask).sum(), (squares * (1 - self.sharded_mask)).sum()])
        dist.all_reduce(sums, group=self.groups.dp_group)
        norm = (tp.all_reduce(sums[0].clone()) + sums[1]).sqrt()
        if max_norm:
            part.mul_((max_norm / (norm + 1e-6)).clamp(max=1.0))
        self._grad, self._buffer = part, flat  # the all-gather reuses the flat vector
        return norm

    @torch.no_grad()
    def step(self):
        lr = self.adam.param_groups[0]["lr"]
        for group in self.owned_groups:
            group["lr"] = lr
        self.part.grad = self._grad
        if self.weight_decay:
            self.part.mul_(1.0 - lr * self.weight_decay * self.decay_mask)
        self.adam.step()
        self.part.grad = None  # the part's gradient is made anew by the next reduce_gradients
        whole = self._buffer
        all_gather(whole, self.part.detach(), self.groups.dp_group)
        for p, start in self.order:
            p.copy_(whole[start:start + p.numel()].view_as(p))
        self._grad = self._buffer = None

    def zero_grad(self, set_to_none=True):
        """Nothing to clear: step() drops the part's gradient (torch's optimizer interface)."""

    def refresh_part(self):
        """This rank's fp32 part from the parameters (which the step keeps equal to it after)."""
        with torch.no_grad():
            self.part.copy_(self._flat([p.detach() for p in self.params]).index_select(0, self.part_index))
