"""The two tensor collectives under their names in every torch the trainer runs on: torch 2.13
calls them reduce_scatter_single and all_gather_single (the older names warn there), torch 2.9
(torch-xla's) reduce_scatter_tensor and all_gather_into_tensor. Both along dimension 0."""

import torch.distributed as dist


def reduce_scatter(output, tensor, group):
    """output = this rank's slice (dimension 0) of the sum of `tensor` over `group`."""
    (getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor)(output, tensor, group=group)


def all_gather(output, tensor, group):
    """output = every rank's `tensor` of `group`, concatenated along dimension 0 in rank order."""
    (getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor)(output, tensor, group=group)
