"""Commands that read AWS fail within about a minute when an endpoint does not answer."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from seedance import awsclient


def test_client_waits_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    c = awsclient.client("ec2", "us-east-1")
    assert (c.meta.config.connect_timeout, c.meta.config.read_timeout) == (5, 20)
    assert c.meta.config.retries["total_max_attempts"] == 2


def test_an_endpoint_that_never_answers_fails_in_bounded_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from botocore.exceptions import BotoCoreError

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:  # accept and never reply
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.getsockname()[1]}")
    monkeypatch.setattr(awsclient, "READ_TIMEOUT_S", 1)
    try:
        with pytest.raises(BotoCoreError):
            awsclient.client("ec2", "us-east-1").describe_regions()
        # each attempt gave up on its read timeout, and no more attempts were made than allowed
        # (the default would have waited 60 s per attempt, three times)
        time.sleep(0.3)  # let the accept loop record the last connection
        assert len(held) == awsclient.MAX_ATTEMPTS
    finally:
        stop.set()
        thread.join(timeout=5)
        for s in held:
            s.close()
        server.close()
