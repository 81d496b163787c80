"""The test library's ports: a store's port must not be one the kernel can hand to a socket bound
to port 0 while the store's process starts (trainer_testlib.free_port says why)."""

from trainer_testlib import ephemeral_ports, free_port


def test_free_ports_are_outside_the_ephemeral_range_and_never_repeat(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    ports = [free_port() for _ in range(200)]
    ephemeral = ephemeral_ports()
    assert not [p for p in ports if p in ephemeral], ports
    assert len(set(ports)) == len(ports)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    others = {free_port() for _ in range(200)}
    assert not others & set(ports), "two pytest-xdist workers drew the same port"
