"""One forward and backward pass of a tiny Llama over a tensor-parallel group of every rank
(torchrun starts it): the full model is initialized alike on every rank and sharded, so each
tensor-parallel degree computes the same function. Rank 0 saves the loss and the merged
gradients to OUTPUT (a torch file) for the test to compare across degrees."""

import sys

import torch
import torch.distributed as dist

from trn_trainer.models.llama import LlamaForCausalLM
from trn_trainer.models.llama_config import llama_config
from trn_trainer.parallel.llama_shards import merge_states, shard_state
from trn_trainer.parallel.tensor_parallel import TensorParallel


def main(output):
    dist.init_process_group("gloo")
    tp = TensorParallel(dist.get_world_size(), dist.get_rank(), dist.group.WORLD)
    config = llama_config("tiny", vocab_size=96)
    full = LlamaForCausalLM(config, seed=7).state_dict()
    model = LlamaForCausalLM(config, tp, seed=7)  # its own slice of the same weights
    mine = shard_state(full, tp.size, tp.rank)
    assert all(torch.equal(mine[name], value) for name, value in model.state_dict().items())
    ids = torch.randint(0, config.vocab_size, (3, 17), generator=torch.Generator().manual_seed(1))
    labels = ids.clone()
    labels[0, :5] = -100  # ignored positions count nowhere
    loss = model(ids, labels)
    loss.backward()
    shard = {name: p.grad for name, p in model.named_parameters()}
    gathered = [None] * tp.size
    dist.all_gather_object(gathered, shard)
    if tp.rank == 0:
        torch.save({"loss": loss.item(), "grads": merge_states(gathered)}, output)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
