"""Llama's tensor- and data-parallel groups (parallel/lm_groups.py): consecutive ranks by default,
and on trn2 the order neuronx-distributed's parallel_state gives half-node groups (tp 32 at
logical NeuronCore config 2, tp 64 at config 1: rows 0 and 3 of a node's cores, then rows 1
and 2; docs/hardware.md#torch-xla-groups). Each rank's place in its groups is checked in torch's
own fake process group (no communication: the groups' membership is what is tested)."""

import pytest
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore

from trn_trainer.devices.xla import neuronx_distributed_mesh, trn2_ring_halves_mesh
from trn_trainer.errors import UsageError
from trn_trainer.parallel.lm_groups import lm_groups


def _span(first, stop):
    return list(range(first, stop))


def test_half_a_trn2_node_pairs_the_first_and_last_rows_of_its_cores():
    # LNC 2: 64 cores a node, rows of 16. Two nodes.
    mesh = trn2_ring_halves_mesh(128, 32, 64, "trn2-lnc2")
    assert mesh == [_span(0, 16) + _span(48, 64), _span(16, 32) + _span(32, 48),
                    _span(64, 80) + _span(112, 128), _span(80, 96) + _span(96, 112)]
    # LNC 1: 128 cores a node, rows of 32.
    mesh = trn2_ring_halves_mesh(128, 64, 128, "trn2-lnc1")
    assert mesh == [_span(0, 32) + _span(96, 128), _span(32, 64) + _span(64, 96)]


@pytest.mark.parametrize("world, tp, local, arch", [
    (64, 32, 64, "trn1"),        # trn1: consecutive cores are linked
    (64, 16, 64, "trn2-lnc2"),   # a quarter node: consecutive ranks work
    (128, 64, 64, "trn2-lnc2"),  # a whole LNC 2 node
    (64, 32, 32, "trn2-lnc2"),   # not a whole node's cores: neuronx-distributed falls back too
    (64, 32, 64, None),          # not a Neuron device
])
def test_every_other_shape_keeps_consecutive_ranks(world, tp, local, arch):
    assert trn2_ring_halves_mesh(world, tp, local, arch) is None


def test_tp_4_on_trn1_groups_cores_a_quarter_node_apart():
    # neuronx-distributed v2.28.0 parallel_state: two trn1.32xlarge nodes, 32 cores each.
    mesh = neuronx_distributed_mesh(64, 4, 32, "trn1")
    assert mesh[:2] == [[0, 8, 16, 24], [1, 9, 17, 25]]
    assert mesh[7] == [7, 15, 23, 31] and mesh[8] == [32, 40, 48, 56] and len(mesh) == 16
    assert neuronx_distributed_mesh(64, 2, 32, "trn1") is None  # consecutive pairs
    assert neuronx_distributed_mesh(8, 4, 4, "trn1") is None    # one group a node: consecutive
    # The trn2 half-node order comes through the same call.
    assert neuronx_distributed_mesh(64, 32, 64, "trn2-lnc2") == trn2_ring_halves_mesh(64, 32, 64, "trn2-lnc2")


@pytest.mark.parametrize("world, tp, local, arch, fix", [
    (128, 8, 64, "trn2-lnc2", "4, 16, 32 or 64"),
    (128, 16, 128, "trn2-lnc1", "8, 32, 64 or 128"),
])
def test_a_degree_neuronx_distributed_does_not_support_on_trn2_is_one_line(world, tp, local, arch, fix):
    expected = f"--tensor-parallel {tp} on trn2 at logical NeuronCore config .*{fix}"
    with pytest.raises(UsageError, match=expected):
        neuronx_distributed_mesh(world, tp, local, arch)


def test_the_trn1_tp_4_groups_hold_every_rank_once():
    mesh = neuronx_distributed_mesh(64, 4, 32, "trn1")
    tp_rank, dp_rank, tp_ranks, dp_ranks = _groups_of(17, 64, 4, mesh)
    # Rank 17 is the third of group [1, 9, 17, 25], group number 1.
    assert (tp_rank, dp_rank, tp_ranks) == (2, 1, [1, 9, 17, 25])
    assert dp_ranks == list(range(16, 24)) + list(range(48, 56))


def _groups_of(rank, world, tp, mesh=None):
    dist.init_process_group("fake", rank=rank, world_size=world, store=FakeStore())
    try:
        groups = lm_groups(rank, world, tp, tp_mesh=mesh)
        return (groups.tp.rank, groups.dp_rank, dist.get_process_group_ranks(groups.tp.group),
                dist.get_process_group_ranks(groups.dp_group))
    finally:
        dist.destroy_process_group()


def test_a_rank_takes_its_place_in_the_trn2_groups():
    mesh = trn2_ring_halves_mesh(64, 32, 64, "trn2-lnc2")
    # Rank 48 (core 48, row 3) is the 17th of the first group; data-parallel with core 32, the
    # 17th of the other. Its data-parallel rank is its group's number, the same for every rank
    # of the group (they read the same samples), not its place in the data-parallel group
    # (torch's new_group sorts the ranks: 32 before 48).
    tp_rank, dp_rank, tp_ranks, dp_ranks = _groups_of(48, 64, 32, mesh)
    assert (tp_rank, dp_rank) == (16, 0)
    assert tp_ranks == _span(0, 16) + _span(48, 64)
    assert dp_ranks == [32, 48]
    assert _groups_of(0, 64, 32, mesh)[:2] == (0, 0)
    tp_rank, dp_rank, tp_ranks, dp_ranks = _groups_of(20, 64, 32, mesh)
    assert (tp_rank, dp_rank, dp_ranks) == (4, 1, [4, 20])


def test_consecutive_groups_without_a_device_mesh():
    tp_rank, dp_rank, tp_ranks, dp_ranks = _groups_of(5, 8, 2)
    assert (tp_rank, dp_rank, tp_ranks, dp_ranks) == (1, 2, [4, 5], [1, 3, 5, 7])


def test_a_mesh_that_does_not_cover_the_world_once_is_refused():
    with pytest.raises(ValueError, match="not groups of 2"):
        _groups_of(0, 4, 2, [[0, 1], [1, 2]])
