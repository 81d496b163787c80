"""World-size-invariant sampling and batch assembly.

The global sample stream is fixed by the seed alone: for each epoch a seeded order of the shards
and, inside each shard, a seeded order of its rows. Optimizer step s consumes stream positions
[c, c + G) where c counts the samples consumed so far, G the global batch. That slice is cut
into G/B chunks of B (the micro-batch); process r takes chunk m*W + r in micro-step m. So one
process with accumulation 8 and four with accumulation 2 see the same global batches, and the
chunks themselves are identical whenever B is.
"""

import concurrent.futures
import threading

import numpy as np
import torch

from ..errors import DataError
from ..models.dropout import sample_seeds
from .bert_shards import read_shard


class GlobalOrder:
    def __init__(self, lengths, seed):
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.total = int(self.lengths.sum())
        self.seed = seed
        self._shard_orders = {}
        self._row_orders = {}

    def shard_order(self, epoch):
        if epoch not in self._shard_orders:
            rng = np.random.default_rng([self.seed, epoch, 0x5AAD])
            order = rng.permutation(len(self.lengths))
            self._shard_orders[epoch] = (order, np.cumsum(self.lengths[order]))
        return self._shard_orders[epoch]

    def row_order(self, epoch, shard):
        key = (epoch, shard)
        if key not in self._row_orders:
            if len(self._row_orders) > 64:
                self._row_orders.clear()
            rng = np.random.default_rng([self.seed, epoch, int(shard) + 1])
            self._row_orders[key] = rng.permutation(int(self.lengths[shard]))
        return self._row_orders[key]

    def locate(self, positions):
        """Stream positions -> (shard index, row) arrays."""
        positions = np.asarray(positions, dtype=np.int64)
        shards = np.empty_like(positions)
        rows = np.empty_like(positions)
        epochs = positions // self.total
        for epoch in np.unique(epochs):
            sel = epochs == epoch
            q = positions[sel] - epoch * self.total
            order, cum = self.shard_order(int(epoch))
            k = np.searchsorted(cum, q, side="right")
            shard = order[k]
            within = q - (cum[k] - self.lengths[shard])
            shards[sel] = shard
            row = np.empty_like(within)
            for s in np.unique(shard):
                m = shard == s
                row[m] = self.row_order(int(epoch), int(s))[within[m]]
            rows[sel] = row
        return shards, rows


class ShardCache:
    """Holds the shards the current step needs; reads the next ones on a background thread."""

    def __init__(self, paths):
        self.paths = paths
        self.loaded = {}
        self.pending = {}
        self.lock = threading.Lock()
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefetch")

    def prefetch(self, shard):
        with self.lock:
            if shard not in self.loaded and shard not in self.pending:
                self.pending[shard] = self.pool.submit(read_shard, self.paths[shard])

    def get(self, shard):
        if shard not in self.loaded:
            self.prefetch(shard)
            with self.lock:
                future = self.pending.pop(shard)
            self.loaded[shard] = future.result()  # re-raises the DataError that names the file
        return self.loaded[shard]

    def keep_only(self, shards):
        for shard in list(self.loaded):
            if shard not in shards:
                del self.loaded[shard]

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=False)


class StepLoader:
    """Returns, for one optimizer step, this process's micro-batches and the global counts."""

    def __init__(self, shard_set, seed, micro_batch, world_size, rank, accumulation, vocab_size):
        self.shards = shard_set
        self.order = GlobalOrder(shard_set.lengths, seed)
        self.cache = ShardCache(shard_set.paths)
        self.seed = seed
        self.micro_batch = micro_batch
        self.world_size = world_size
        self.rank = rank
        self.accumulation = accumulation
        self.global_batch = micro_batch * world_size * accumulation
        self.vocab_size = vocab_size

    def _gather(self, shards, rows, key):
        first = self.cache.get(int(shards[0]))[key]
        out = np.empty((len(rows),) + first.shape[1:], dtype=first.dtype)
        for s in np.unique(shards):
            m = shards == s
            out[m] = self.cache.get(int(s))[key][rows[m]]
        return out

    def step(self, consumed):
        g, b = self.global_batch, self.micro_batch
        positions = consumed + np.arange(g, dtype=np.int64)
        shards, rows = self.order.locate(positions)
        needed = set(int(s) for s in np.unique(shards))
        next_shards, _ = self.order.locate(np.array([consumed + g, consumed + 2 * g - 1]))
        for s in next_shards:
            self.cache.prefetch(int(s))
        self.cache.keep_only(needed | set(int(s) for s in next_shards))

        # Loss normalisation needs the whole global batch's count of masked tokens; every
        # process computes it from the data, so no extra collective is needed.
        global_positions = self._gather(shards, rows, "masked_lm_positions")
        valid_all = np.cumprod(global_positions != 0, axis=1).astype(bool)
        masked_tokens = int(valid_all.sum())

        micro = []
        for m in range(self.accumulation):
            chunk = m * self.world_size + self.rank
            sl = slice(chunk * b, (chunk + 1) * b)
            micro.append(self._micro_batch(positions[sl], shards[sl], rows[sl], valid_all[sl]))
        return micro, max(masked_tokens, 1)

    def _micro_batch(self, positions, shards, rows, valid):
        get = lambda key: self._gather(shards, rows, key)  # noqa: E731
        input_ids = get("input_ids")
        if input_ids.size and (input_ids.max() >= self.vocab_size or input_ids.min() < 0):
            bad = int(shards[np.argmax(input_ids.max(axis=1))])
            raise DataError(f"shard {self.shards.paths[bad]}: token id {int(input_ids.max())} is outside "
                            f"the vocabulary of {self.vocab_size}; pass --vocab-size or the data's vocab.txt")
        masked_ids = get("masked_lm_ids").astype(np.int64)
        labels = np.where(valid, masked_ids, -1)
        as_long = lambda a: torch.from_numpy(np.ascontiguousarray(a, dtype=np.int64))  # noqa: E731
        return {
            "input_ids": as_long(input_ids),
            "segment_ids": as_long(get("segment_ids")),
            "input_mask": as_long(get("input_mask")),
            "masked_lm_positions": as_long(get("masked_lm_positions")),
            "masked_lm_labels": as_long(labels),
            "next_sentence_labels": as_long(get("next_sentence_labels")),
            "sample_seeds": sample_seeds(self.seed, torch.from_numpy(positions.copy())),
        }

    def close(self):
        self.cache.close()
