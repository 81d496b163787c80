"""The test library's ports: a store's port must not be one the kernel can hand to a socket bound
to port 0 while the store's process starts (trainer_testlib.free_port says why)."""

import trainer_testlib
from trainer_testlib import ephemeral_ports, free_port


def test_free_ports_are_outside_the_ephemeral_range_and_never_repeat(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    ports = [free_port() for _ in range(200)]
    ephemeral = ephemeral_ports()
    assert not [p for p in ports if p in ephemeral], ports
    assert len(set(ports)) == len(ports)
    # Each pytest-xdist worker is its own process with its own _handed_out: forget this one's
    # draws so that only the slicing, not the process-wide record, can keep gw0 off gw1's ports.
    monkeypatch.setattr(trainer_testlib, "_handed_out", set())
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    others = [free_port() for _ in range(200)]
    assert not set(others) & set(ports), "two pytest-xdist workers drew the same port"
    half = len(trainer_testlib.TEST_PORTS) // 2
    gw0_slice = trainer_testlib.TEST_PORTS[:half]
    gw1_slice = trainer_testlib.TEST_PORTS[half:2 * half]
    assert all(p in gw0_slice for p in others), others
    assert all(p in gw1_slice for p in ports), ports
