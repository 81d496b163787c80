"""The torch-xla double's reduce-scatter and all-gather into one tensor (what ZeRO-1 and sequence
parallelism call) are as strict as torch-xla 2.9.0 (docs/hardware.md#torch-xla-groups):
`dist.reduce_scatter_tensor` / `dist.reduce_scatter` / `dist.all_gather_into_tensor` on an "xla"
group go through ProcessGroupXla to xm.reduce_scatter and xm.all_gather over the group's mesh,
each replica receiving its group's shard or gather only; the input's shape is checked when the
collective is traced (XLA's shape inference: a RuntimeError at the call), the replica groups and
the shard count when the graph compiles (XLA's verifier: a ValueError, which the double raises at
the call). Each case runs in child processes: the double replaces torch_xla for a whole process."""

import json
import subprocess
import textwrap

from trainer_testlib import PYTHON, free_port, xla_double_env

PRELUDE = """
import json, sys, warnings
import torch, torch.distributed as dist
import torch_xla, torch_xla.core.xla_model as xm, torch_xla.runtime as xr
xm.set_replication(torch_xla.device(), xm.get_xla_supported_devices())  # as per-core tasks do
warnings.simplefilter("ignore", FutureWarning)  # torch 2.13 renames the 2.9 calls
device = torch_xla.device()


def on_device(values):
    return torch.tensor(values, dtype=torch.float32).to(device)


def attempt(name, call):
    try:
        call()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, str(e).splitlines()[0])
"""


def _env(tmp_path, ordinal, world, **extra):
    """A process on the double that the PJRT variables place at `ordinal` of `world`."""
    env = xla_double_env(tmp_path, **extra)
    env.update(NEURON_PJRT_PROCESS_INDEX=str(ordinal), NEURON_PJRT_WORLD_SIZE=str(world))
    return env


def _run(tmp_path, code, world):
    """`code` in `world` processes that form the xla world: (stdout lines, stats) of each."""
    script = tmp_path / "script.py"
    script.write_text(PRELUDE + textwrap.dedent(code))
    port = str(free_port())
    procs = [subprocess.Popen([PYTHON, str(script)],
                              env=_env(tmp_path, rank, world, MASTER_ADDR="127.0.0.1", MASTER_PORT=port),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in range(world)]
    try:
        results = [p.communicate(timeout=180) for p in procs]
    finally:
        for p in procs:
            p.kill()
    outputs = []
    for p, (stdout, stderr) in zip(procs, results):
        assert p.returncode == 0, stdout[-2000:] + stderr[-3000:]
        outputs.append(stdout.splitlines())
    stats = [json.loads((tmp_path / f"{rank}.json").read_text()) for rank in range(world)]
    return outputs, stats


TWO_GROUPS_OF_TWO = """
import torch_xla.distributed.xla_backend  # noqa: F401
dist.init_process_group("xla", init_method="xla://")
rank = xr.global_ordinal()
mesh = [[0, 1], [2, 3]]


def groups(with_mesh):
    mine = None
    for ranks in mesh:  # every rank makes every group, as torch requires
        group = dist.new_group(ranks, pg_options={"xla_pg_options": {"mesh": mesh}} if with_mesh else None)
        if rank in ranks:
            mine = group
    return mine


tp = groups(with_mesh=True)
got = {}
got["rs"] = torch.zeros(2, device=device)
dist.reduce_scatter_tensor(got["rs"], on_device([0, 1, 2, 3]) + 10 * rank, group=tp)
got["rs_max"] = torch.zeros(2, 2, device=device)
dist.reduce_scatter_tensor(got["rs_max"], on_device([[0, 1], [2, 3], [4, 5], [6, 7]]) * (rank + 1),
                           op=dist.ReduceOp.MAX, group=tp)
got["rs_list"] = torch.zeros(2, device=device)
dist.reduce_scatter(got["rs_list"], [on_device([rank, rank]), on_device([10 * rank, 10 * rank])], group=tp)
got["xm_rs"] = xm.reduce_scatter(xm.REDUCE_SUM, on_device([[rank] * 4]), scale=0.5, scatter_dim=1,
                                 shard_count=2, groups=mesh, pin_layout=False)
got["xm_rs_reversed"] = xm.reduce_scatter(xm.REDUCE_SUM, on_device([0, 1, 2, 3]) + 10 * rank, 1.0, 0, 2,
                                          groups=[[1, 0], [3, 2]])
got["ag"] = torch.zeros(4, device=device)
dist.all_gather_into_tensor(got["ag"], on_device([10 * rank, 10 * rank + 1]), group=tp)
got["ag_stacked"] = torch.zeros(2, 2, device=device)
dist.all_gather_into_tensor(got["ag_stacked"], on_device([10 * rank, 10 * rank + 1]), group=tp)
got["ag_scalar"] = torch.zeros(2, device=device)
dist.all_gather_into_tensor(got["ag_scalar"], on_device(rank), group=tp)
got["rs_world"] = torch.zeros(1, device=device)
dist.reduce_scatter_tensor(got["rs_world"], on_device([1, 2, 3, 4]))
got["ag_world"] = torch.zeros(4, device=device)
dist.all_gather_into_tensor(got["ag_world"], on_device([rank]))
xm.mark_step()
print(json.dumps({k: v.cpu().tolist() for k, v in got.items()}))
sys.stdout.flush()

out = torch.zeros(2, device=device)
attempt("rs_5_in_2", lambda: dist.reduce_scatter_tensor(out, on_device([1, 2, 3, 4, 5]), group=tp))
attempt("ag_not_stacked", lambda: dist.all_gather_into_tensor(torch.zeros(3, device=device),
                                                              on_device([1, 2]), group=tp))
attempt("rs_output_shape", lambda: dist.reduce_scatter_tensor(torch.zeros(3, device=device),
                                                               on_device([1, 2, 3, 4]), group=tp))
partial = groups(with_mesh=False)
print("partial mesh", partial._mesh)
attempt("rs_partial", lambda: dist.reduce_scatter_tensor(out, on_device([1, 2, 3, 4]), group=partial))
attempt("ag_partial", lambda: dist.all_gather_into_tensor(torch.zeros(4, device=device),
                                                          on_device([1, 2]), group=partial))
xm.mark_step()
sys.stdout.flush()
"""


def test_reduce_scatter_and_all_gather_into_tensor_in_two_groups_of_two(tmp_path):
    outputs, stats = _run(tmp_path, TWO_GROUPS_OF_TWO, world=4)
    for rank, lines in enumerate(outputs):
        g, place = rank // 2, rank % 2  # the tensor-parallel group and the place in it
        first = 2 * g
        got = json.loads(lines[0])
        # The group's sum (2 * [0, 1, 2, 3] + 10 * (first + first + 1)), this rank's half of it.
        summed = [2 * x + 10 * (2 * first + 1) for x in range(4)]
        assert got["rs"] == summed[2 * place:2 * place + 2], (rank, got)
        # The group's maximum: its second rank's values; this rank's two rows.
        rows = [[(first + 2) * x, (first + 2) * (x + 1)] for x in (0, 2, 4, 6)]
        assert got["rs_max"] == rows[2 * place:2 * place + 2], (rank, got)
        # reduce_scatter of a list: the list concatenated, summed over the group, split.
        assert got["rs_list"] == [[2 * first + 1.0] * 2, [10.0 * (2 * first + 1)] * 2][place], (rank, got)
        # xm.reduce_scatter along dimension 1, scaled.
        assert got["xm_rs"] == [[(2 * first + 1) / 2] * 2], (rank, got)
        # The shards go to the members in the group's order: [1, 0] gives rank 1 the first.
        assert got["xm_rs_reversed"] == summed[2 * (1 - place):2 * (1 - place) + 2], (rank, got)
        # Gathered within the group, concatenated or stacked as the output's shape asks.
        gathered = [10.0 * first, 10.0 * first + 1, 10.0 * first + 10, 10.0 * first + 11]
        assert got["ag"] == gathered, (rank, got)
        assert got["ag_stacked"] == [gathered[:2], gathered[2:]], (rank, got)
        assert got["ag_scalar"] == [first, first + 1.0], (rank, got)
        # The default group is every replica: four shards, and a gather of four.
        assert got["rs_world"] == [4.0 * (rank + 1)], (rank, got)
        assert got["ag_world"] == [0.0, 1.0, 2.0, 3.0], (rank, got)

        refusals = dict(line.split(" ", 1) for line in lines[1:4])
        # XLA's shape inference, when the collective is traced.
        assert refusals["rs_5_in_2"] == ("RuntimeError ReduceScatter operand scatter dimension size 5 "
                                         "must be dividable by shard_count 2."), lines
        # ProcessGroupXla._allgather_base's own check, after the gather.
        assert refusals["ag_not_stacked"] == (
            "ValueError Input shape torch.Size([2]) and output shape torch.Size([3]) are not compatible for "
            "all_gather_into_tensor. Input must be stacked or concatenated to create output."), lines
        # The real one gives the output the result's shape unchecked: not modelled.
        assert refusals["rs_output_shape"].startswith("NotImplementedError torch_xla TEST DOUBLE"), lines
        # Without the mesh each member knows only its own group, and XLA refuses that.
        assert lines[4] == f"partial mesh [[{first}, {first + 1}]]", lines
        refusal = ("In kCrossReplica mode, replica groups should contain 4 replicas, but found 2" if rank < 2
                   else "Replica 0 is not named in instruction's replica-groups")
        assert lines[5].startswith(f"rs_partial ValueError {refusal}: reduce-scatter,"), lines
        assert lines[6].startswith(f"ag_partial ValueError {refusal}: all-gather,"), lines

    # Each collective is in the graph (the refused ones before it are not), and every rank traced
    # the same graphs.
    for counts in stats:
        assert counts["events"].count("reduce_scatter") == 6, counts["events"]
        assert counts["events"].count("all_gather") == 5, counts["events"]
        assert counts["all_reduce_calls"] == 0, counts
    assert len({tuple(counts["graph_digests"]) for counts in stats}) == 1, stats


WORLD_OF_ONE = """
import torch_xla.distributed.xla_backend  # noqa: F401
from torch._C._distributed_c10d import AllgatherOptions, ReduceScatterOptions
dist.init_process_group("xla", init_method="xla://")
world = dist.group.WORLD
got = {}
got["rs"] = torch.zeros(3, device=device)
dist.reduce_scatter_tensor(got["rs"], on_device([1, 2, 3]))
got["rs_base"] = torch.zeros(3, device=device)  # the call torch 2.9's reduce_scatter_tensor makes
world._reduce_scatter_base(got["rs_base"], on_device([4, 5, 6]), ReduceScatterOptions()).wait()
got["ag"] = torch.zeros(3, device=device)
dist.all_gather_into_tensor(got["ag"], on_device([1, 2, 3]))
got["ag_base"] = torch.zeros(1, 3, device=device)  # torch 2.9's all_gather_into_tensor, stacked
world._allgather_base(got["ag_base"], on_device([4, 5, 6]), AllgatherOptions()).wait()
got["xm_rs"] = xm.reduce_scatter(xm.REDUCE_SUM, on_device([1, 2]), 2.0, 0, 1)
got["xm_all_reduce"] = xm.all_reduce(xm.REDUCE_SUM, on_device([1, 2]))
xm.mark_step()
print(json.dumps({k: v.cpu().tolist() for k, v in got.items()}))
attempt("bxor", lambda: dist.reduce_scatter_tensor(torch.zeros(1, device=device), on_device([1]),
                                                   op=dist.ReduceOp.BXOR))
attempt("avg", lambda: dist.reduce_scatter_tensor(torch.zeros(1, device=device), on_device([1]),
                                                  op=dist.ReduceOp.AVG))
attempt("list_shapes", lambda: dist.reduce_scatter(torch.zeros(2, device=device),
                                                   [on_device([1, 2]), on_device([1, 2, 3])]))
"""


def test_a_world_of_one_reduce_scatters_and_gathers_in_the_graph(tmp_path):
    """Unlike xm.all_reduce, which returns at once in a world of one, the real reduce-scatter and
    unpinned all-gather have no such shortcut: each is a collective of one replica in the graph."""
    outputs, stats = _run(tmp_path, WORLD_OF_ONE, world=1)
    lines = outputs[0]
    assert json.loads(lines[0]) == {"rs": [1.0, 2.0, 3.0], "rs_base": [4.0, 5.0, 6.0], "ag": [1.0, 2.0, 3.0],
                                    "ag_base": [[4.0, 5.0, 6.0]], "xm_rs": [2.0, 4.0],
                                    "xm_all_reduce": [1.0, 2.0]}, lines
    # ProcessGroupXla's reduce ops, as for all_reduce (the message names the option object).
    assert lines[1].startswith("bxor NotImplementedError reduce op "), lines
    assert lines[2].startswith("avg ValueError Invalid reduce op "), lines
    assert lines[3] == ("list_shapes ValueError Input 1's shape is different from input 0: "
                        "torch.Size([3]) vs torch.Size([2])"), lines
    assert stats[0]["events"].count("reduce_scatter") == 3, stats[0]["events"]
    assert stats[0]["events"].count("all_gather") == 2, stats[0]["events"]
    assert stats[0]["all_reduce_calls"] == 0, stats[0]


def _refusals(tmp_path, calls, ordinal=0, world=4):
    """For each of `calls` (expressions, run in one process of `world` with no process group: the
    checks come before anything is sent): the exception type and message, or "no error"."""
    code = f"t = on_device([1, 2, 3, 4])\nfor call in {calls!r}:\n    attempt('', lambda: eval(call))\n"
    done = subprocess.run([PYTHON, "-c", PRELUDE + code], env=_env(tmp_path, ordinal, world),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return [line.strip() for line in done.stdout.splitlines()]


def test_xm_reduce_scatter_refuses_what_torch_xla_and_xla_refuse(tmp_path):
    mesh = [[0, 1], [2, 3]]
    verifier = ("RET_CHECK failure (xla/service/hlo_verifier.cc) subgroup_size == 1 || "
                "shard_count == subgroup_size")

    def scatter(scatter_dim=0, shard_count=2, groups=mesh, value="t", reduce_type="xm.REDUCE_SUM"):
        return (f"xm.reduce_scatter({reduce_type}, {value}, 1.0, {scatter_dim}, {shard_count}, "
                f"groups={groups!r})")

    table = [
        # torch-xla's own checks and the binding's types, at the call.
        (scatter(value="3"), "TypeError `input` needs to be a Tensor or a list of Tensors, but given "
                             "<class 'int'>."),
        (scatter(groups=((0, 1), (2, 3))), "TypeError replica groups must be a list"),
        (scatter(reduce_type="'avg'"), "RuntimeError Unknown AllReduce type: avg"),
        # XLA's shape inference, at the call: no negative dimension (not made canonical), one the
        # input has, a size the shard count divides.
        (scatter(scatter_dim=-1), "RuntimeError RET_CHECK failure (xla/service/shape_inference.cc) "
                                  "scatter_dimension >= 0"),
        (scatter(scatter_dim=1), "RuntimeError RET_CHECK failure (xla/service/shape_inference.cc) "
                                 "scatter_dimension < "),
        (scatter(shard_count=0), "RuntimeError RET_CHECK failure (xla/service/shape_inference.cc) "
                                 "shard_count > 0"),
        (scatter(shard_count=3), "RuntimeError ReduceScatter operand scatter dimension size 4 must be "
                                 "dividable by shard_count 3."),
        # XLA's verifier, when the graph compiles: groups of one size naming every replica, and as
        # many shards as a group has members.
        (scatter(groups=[[0, 1, 2], [3]], shard_count=1),
         "ValueError Replica groups expected to be of uniform size: reduce-scatter,"),
        (scatter(groups=[[0, 1]]),
         "ValueError In kCrossReplica mode, replica groups should contain 4 replicas, but found 2"),
        (scatter(shard_count=4), f"ValueError {verifier} shard_count = 4, subgroup_size = 2"),
        (scatter(groups=None), f"ValueError {verifier} shard_count = 2, subgroup_size = 4"),
        # What trn_trainer does not call.
        (scatter(value="[t]"), "NotImplementedError torch_xla TEST DOUBLE: xm.reduce_scatter of a list"),
        # A call that passes every check needs its peers: no process group here, so it stops at the
        # double's own carrier.
        (scatter(), "RuntimeError torch_xla TEST DOUBLE: a collective between processes needs the xla "
                    "process group"),
    ]
    results = _refusals(tmp_path, [call for call, _ in table])
    assert len(results) == len(table), results
    for (call, expected), result in zip(table, results):
        assert result.startswith(expected), (call, result)
