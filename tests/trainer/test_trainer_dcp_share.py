"""checkpoint/dcp_share.py: torch.distributed.checkpoint's plan with the chunks kept as the
engine's shares (docs/checkpoints.md#dcp), in one process: a state comes back whole, a load
takes a slice of a tensor, and a share without a chunk its metadata names is one ValueError."""

import pytest
import torch

from trn_trainer.checkpoint import dcp_share


def state():
    return {"model": {"w": torch.arange(12.0).view(3, 4), "step": torch.tensor(5.0)},
            "optim": {"w": {"exp_avg": torch.full((3, 4), 0.5)}}}


def test_a_state_comes_back_whole_from_its_share():
    share = dcp_share.share_of(state(), 0)
    assert set(share) == {dcp_share.ITEMS, dcp_share.METADATA}
    template = {"model": {"w": torch.zeros(3, 4), "step": torch.tensor(0.0)},
                "optim": {"w": {"exp_avg": torch.zeros(3, 4)}}}
    loaded = dcp_share.load_into(template, share[dcp_share.METADATA], {0: share}.__getitem__)
    for (key, value), (_, expected) in zip(sorted(flat(loaded)), sorted(flat(state()))):
        assert torch.equal(value, expected), key
    assert dcp_share.tensor_sizes(share[dcp_share.METADATA], "model") == {
        "w": torch.Size([3, 4]), "step": torch.Size([])}


def test_a_share_without_a_chunk_is_one_value_error():
    share = dcp_share.share_of(state(), 0)
    damaged = {dcp_share.ITEMS: {}}
    with pytest.raises(ValueError, match="the share of rank 0 lacks chunk .* of model.w"):
        dcp_share.load_into({"model": {"w": torch.zeros(3, 4)}}, share[dcp_share.METADATA],
                            lambda rank: damaged)


def flat(tree, prefix=""):
    for key, value in tree.items():
        if isinstance(value, dict):
            yield from flat(value, prefix + key + ".")
        else:
            yield prefix + key, value
