"""One rank of a tensor-parallel world (RANK, WORLD_SIZE, MASTER_* as torchrun gives them):
Llama tiny's loss and every gradient for one batch, without and with sequence parallelism, the
norms' gradients summed over the group as pretrain-lm sums them (unless
$TRN_TEST_KEEP_NORM_GRADIENTS is set: what the sum is for). Written to $OUT/rank<R>.pt."""

import os

import torch
import torch.distributed as dist

from trn_trainer.models.llama import LlamaForCausalLM
from trn_trainer.models.llama_config import llama_config
from trn_trainer.parallel.llama_shards import split_dim
from trn_trainer.parallel.lm_groups import lm_groups
from trn_trainer.parallel.tensor_parallel import sum_sequence_parallel_gradients

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
groups = lm_groups(rank, world, world)
ids = torch.randint(0, 400, (2, 32), generator=torch.Generator().manual_seed(7))
result = {}
for sequence_parallel in (False, True):
    model = LlamaForCausalLM(llama_config("tiny", 400), groups.tp, seed=3,
                             sequence_parallel=sequence_parallel)
    loss = model(ids, ids)
    loss.backward()
    named = list(model.named_parameters())
    if sequence_parallel and not os.environ.get("TRN_TEST_KEEP_NORM_GRADIENTS"):
        sum_sequence_parallel_gradients([p.grad for n, p in named if split_dim(n) is None], groups.tp)
    result[sequence_parallel] = {"loss": loss.item(), "grads": {n: p.grad.clone() for n, p in named}}
torch.save(result, os.path.join(os.environ["OUT"], f"rank{rank}.pt"))
dist.destroy_process_group()
