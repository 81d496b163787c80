"""The torch-xla double's collectives are as strict as torch-xla 2.9 (docs/hardware.md#torch-xla-groups):
replica groups checked as XLA checks them, a collective reducing only within the caller's group,
`dist.new_group(ranks)` on the xla backend giving the mesh torch-xla gives it (a partial one
without `xla_pg_options`), `dist.barrier` on it doing nothing and xm.rendezvous exchanging
payloads; and the world is 1 until xm.set_replication, as in torch-xla 2.9. Each case runs in
child processes: the double replaces torch_xla for a whole process."""

import subprocess
import textwrap

from trainer_testlib import PYTHON, free_port, xla_double_env

PRELUDE = """
import torch, torch.distributed as dist
import torch_xla, torch_xla.core.xla_model as xm, torch_xla.runtime as xr
xm.set_replication(torch_xla.device(), xm.get_xla_supported_devices())  # as per-core tasks do
"""


def _env(tmp_path, ordinal, world, **extra):
    """A process on the double that the PJRT variables place at `ordinal` of `world`."""
    env = xla_double_env(tmp_path, **extra)
    env.update(NEURON_PJRT_PROCESS_INDEX=str(ordinal), NEURON_PJRT_WORLD_SIZE=str(world))
    return env


def _one_process(tmp_path, code, ordinal=0, world=4):
    """`code` in one process at `ordinal` of `world`, with no process group: the checks come
    before anything is sent."""
    env = _env(tmp_path, ordinal, world)
    return subprocess.run([PYTHON, "-c", PRELUDE + textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=120)


def _refusals(tmp_path, calls, ordinal=0, world=4):
    """For each of `calls` (expressions): the exception type and message it raises, or "no error"."""
    done = _one_process(tmp_path, f"""
        t = torch.ones(2).to(torch_xla.device())
        for call in {calls!r}:
            try:
                eval(call)
                print("no error")
            except Exception as e:
                print(type(e).__name__, e)
        """, ordinal, world)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def _check(tmp_path, table, ordinal=0, world=4):
    results = _refusals(tmp_path, [call for call, _ in table], ordinal, world)
    for (call, expected), result in zip(table, results):
        assert result.startswith(expected), (call, result)
    assert len(results) == len(table), results


def test_all_reduce_refuses_groups_xla_refuses(tmp_path):
    def reduce(groups):
        return f"xm.all_reduce(xm.REDUCE_SUM, [t], groups={groups!r})"

    _check(tmp_path, [
        # new_group([0, 1]) of a world of 4 without the mesh gives the mesh [[0, 1]] to its members.
        (reduce([[0, 1]]),
         "ValueError In kCrossReplica mode, replica groups should contain 4 replicas, but found 2"),
        (reduce([[0, 1], [1, 2, 3]]), "ValueError Replica 1 is repeated in instruction's replica-groups"),
        (reduce([[0, 1, 2, 3], []]), "ValueError Instruction cannot have an empty replica group"),
        (reduce([[0, 1], [2, 5]]), "ValueError Replica 3 is not named in instruction's replica-groups"),
        (reduce(((0, 1), (2, 3))), "TypeError replica groups must be a list"),
        (reduce([[0, 1.0], [2, 3]]), "TypeError a replica id must be an int"),
        (reduce([0, 1, 2, 3]), "TypeError a replica group must be a sequence of int"),
    ])
    # ... and [[2, 3]] to its members.
    refused = "ValueError Replica 0 is not named in instruction's replica-groups"
    _check(tmp_path, [(reduce([[2, 3]]), refused)], ordinal=2)


def test_all_reduce_takes_uneven_groups_but_all_gather_does_not(tmp_path):
    """XLA lets an all-reduce's groups differ in size; an all-gather's (and torch-xla's own
    assert) not. The uneven all-reduce passes every check and then needs its peers: no process
    group here, so it stops at the double's own carrier."""
    uneven = [[0, 1, 2], [3]]
    _check(tmp_path, [
        (f"xm.all_reduce(xm.REDUCE_SUM, [t], groups={uneven!r})",
         "RuntimeError torch_xla TEST DOUBLE: a collective between processes needs the xla process group"),
        (f"xm.all_gather(t, groups={uneven!r}, pin_layout=False)",
         "AssertionError Replica groups must have the same number of replicas/shards."),
    ])


def test_other_refusals_of_the_real_library(tmp_path):
    _check(tmp_path, [
        ("xm.all_reduce('avg', [t])", "RuntimeError Unknown AllReduce type: avg"),
        ("xm.rendezvous('x', 'text')", "TypeError `payload` must be bytes"),
        ("xm.rendezvous('x', b'', [0, 1])", "ValueError Only global rendezvous is supported"),
    ])
    # A world of one has no collective to check: the real all_reduce returns a copy.
    _check(tmp_path, [("xm.all_reduce(xm.REDUCE_SUM, t, groups=[[0, 1]])", "no error")], world=1)


def test_the_world_is_one_until_the_process_is_replicated(tmp_path):
    """torch-xla 2.9's world_size() counts replication devices, not the PJRT variables: 1 until
    xm.set_replication, and its first answer is kept. The xla:// rendezvous then makes a world
    of one of every process that did not replicate (docs/hardware.md#torch-xla)."""
    env = _env(tmp_path, 1, 4)
    code = """
        import torch, torch_xla, torch_xla.core.xla_model as xm, torch_xla.runtime as xr
        device = torch_xla.device()
        print(xr.world_size(), xr.global_device_count(), xr.global_ordinal())
        for devices in (["xla:0", "xla:1"], ["xla:1"]):
            try:
                xm.set_replication(device, devices)
            except (RuntimeError, ValueError) as e:
                print(type(e).__name__, e)
        xm.set_replication(device, xm.get_xla_supported_devices())
        print(xr.world_size())  # the first answer, kept
        """
    done = subprocess.run([PYTHON, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "1 4 1", lines
    assert lines[1].startswith("RuntimeError Cannot replicate if number of devices (2) is different from 1")
    assert lines[2].startswith("ValueError"), lines
    assert lines[3] == "1", lines
    fresh = subprocess.run([PYTHON, "-c", PRELUDE + "print(xr.world_size(), xr.global_ordinal())"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert fresh.stdout.split() == ["4", "1"], fresh.stderr[-2000:]


WORLD_OF_FOUR = """
import sys
import torch_xla.distributed.xla_backend  # noqa: F401
dist.init_process_group("xla", init_method="xla://")
rank, device = xr.global_ordinal(), torch_xla.device()


def groups(mesh, with_mesh):
    mine = None
    for ranks in mesh:
        group = dist.new_group(ranks, pg_options={"xla_pg_options": {"mesh": mesh}} if with_mesh else None)
        if rank in ranks:
            mine = group
    return mine


def value(x):
    return torch.tensor([float(x)]).to(device)


tp = groups([[0, 1], [2, 3]], with_mesh=True)
dp = groups([[0, 2], [1, 3]], with_mesh=True)
summed, top = value(rank + 1), value(rank)
dist.all_reduce(summed, group=tp)
dist.all_reduce(top, op=dist.ReduceOp.MAX, group=tp)
parts = [value(-1) for _ in range(2)]
dist.all_gather(parts, value(10 * rank), group=tp)
sent = value(100 + rank)
dist.broadcast(sent, src=[2, 3][rank % 2], group=dp)  # from the second rank of each dp group
everyone = value(1)
dist.all_reduce(everyone)
xm.mark_step()
print("tp", summed.item(), top.item(), [p.item() for p in parts], "dp", sent.item(), "world", everyone.item())
if rank != 3:
    dist.barrier()  # on the xla backend it waits for nobody: rank 3 never calls it
print("rendezvous", xm.rendezvous("check", f"from {rank}".encode()))
partial = groups([[0, 1], [2, 3]], with_mesh=False)
print("partial mesh", partial._mesh)
try:
    dist.all_reduce(value(1), group=partial)
except ValueError as e:
    print("refused:", e)
sys.stdout.flush()
"""


def test_a_world_of_four_with_two_tensor_parallel_groups(tmp_path):
    script = tmp_path / "world_of_four.py"
    script.write_text(PRELUDE + WORLD_OF_FOUR)
    port = str(free_port())
    procs = [subprocess.Popen([PYTHON, str(script)], env=_env(tmp_path, rank, 4, MASTER_ADDR="127.0.0.1",
                                                              MASTER_PORT=port),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in range(4)]
    try:
        results = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    for rank, (p, (stdout, stderr)) in enumerate(zip(procs, results)):
        assert p.returncode == 0, stdout[-2000:] + stderr[-2000:]
        first = rank - rank % 2  # of its tensor-parallel group
        lines = stdout.splitlines()
        # Sums, maxima and gathers within the tensor-parallel group only; the broadcast within
        # the data-parallel group; the default group is the world.
        assert lines[0] == (f"tp {2 * first + 3.0} {first + 1.0} [{10.0 * first}, {10.0 * first + 10}] "
                            f"dp {102.0 + rank % 2} world 4.0"), stdout
        assert lines[1] == "rendezvous [b'from 0', b'from 1', b'from 2', b'from 3']", stdout
        # Without the mesh each member knows only its own group, and XLA refuses that.
        assert lines[2] == f"partial mesh [[{first}, {first + 1}]]", stdout
        refusal = ("In kCrossReplica mode, replica groups should contain 4 replicas, but found 2" if rank < 2
                   else "Replica 0 is not named in instruction's replica-groups")
        assert lines[3].startswith(f"refused: {refusal}"), stdout
