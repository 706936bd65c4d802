"""Tasks taking turns in one thread (store/turns.py): a task waiting on a socket lets the others
run, is resumed once its socket has data (or its time is up), and a write that fills the
socket's buffer waits for room instead of blocking the thread. Real sockets (socketpair)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from ckviz.store import turns
from ckviz.store.turns import Turns


@pytest.fixture
def pairs() -> Iterator[list[tuple[socket.socket, socket.socket]]]:
    made = [socket.socketpair() for _ in range(3)]
    for ours, _ in made:
        ours.settimeout(5.0)  # as redis-py's sockets: non-blocking underneath
    yield made
    for ours, theirs in made:
        ours.close()
        theirs.close()


def test_a_waiting_task_lets_the_others_run_and_resumes_when_its_data_is_in(
    pairs: list[tuple[socket.socket, socket.socket]],
) -> None:
    hub, said = Turns(), list[str]()
    (a, a_peer), (b, b_peer), _ = pairs

    def first() -> None:
        said.append("a waits")
        said.append(hub.receive(a, 100, 5.0).decode())

    def second() -> None:
        said.append("b sends to a")
        a_peer.sendall(b"a's reply")
        said.append(hub.receive(b, 100, 5.0).decode())

    def third() -> None:
        said.append("c sends to b")
        b_peer.sendall(b"b's reply")

    for task in (first, second, third):
        hub.start(task)
    hub.run()
    assert said[:3] == ["a waits", "b sends to a", "c sends to b"]
    assert sorted(said[3:]) == ["a's reply", "b's reply"]


def test_a_wait_past_its_timeout_raises_timeout_and_the_others_go_on(
    pairs: list[tuple[socket.socket, socket.socket]],
) -> None:
    hub, got = Turns(), dict[str, object]()
    (silent, silent_peer), (talking, talking_peer), _ = pairs
    # a timeout not kept would read the peer's hang-up instead (an empty read, no timeout)
    hang_up = threading.Timer(30.0, silent_peer.shutdown, (socket.SHUT_WR,))

    def waits_in_vain() -> None:
        with pytest.raises(TimeoutError):
            hub.receive(silent, 10, 0.2)
        got["timed out"] = True

    def answered() -> None:
        talking_peer.sendall(b"hi")
        got["reply"] = hub.receive(talking, 10, 5.0)

    hang_up.start()
    try:
        hub.start(waits_in_vain)
        hub.start(answered)
        hub.run()
    finally:
        hang_up.cancel()
    assert got == {"reply": b"hi", "timed out": True}


def test_a_write_larger_than_the_buffer_waits_for_room_while_the_reader_drains_it(
    pairs: list[tuple[socket.socket, socket.socket]],
) -> None:
    hub, (writer, reader_end), _ = Turns(), pairs[0], pairs[1]
    reader_end.settimeout(5.0)
    payload = bytes(range(256)) * 40_000  # 10 MB: far past a socket's buffer
    read = bytearray()

    def write() -> None:
        hub.send_all(writer, payload, 5.0)

    def drain() -> None:
        while len(read) < len(payload):
            read.extend(hub.receive(reader_end, 1 << 16, 5.0))

    hub.start(write)
    hub.start(drain)
    hub.run()  # one thread: a blocking write would never have returned
    assert bytes(read) == payload


def test_a_task_started_by_a_task_hands_back_to_the_hub_when_it_ends(
    pairs: list[tuple[socket.socket, socket.socket]],
) -> None:
    hub, said = Turns(), list[str]()
    (a, a_peer), _, _ = pairs

    def child() -> None:
        said.append("child ran")

    def parent() -> None:
        hub.start(child)
        said.append(hub.receive(a, 10, 5.0).decode())  # the child's end must not wake this

    def feeder() -> None:
        a_peer.sendall(b"late")

    hub.start(parent)
    hub.start(feeder)
    hub.run()
    assert said == ["child ran", "late"]


def test_an_exception_a_task_lets_out_ends_the_run() -> None:
    hub = Turns()

    def broken() -> None:
        raise ValueError("a bug in a task")

    hub.start(broken)
    with pytest.raises(ValueError, match="a bug in a task"):
        hub.run()


def test_outside_a_hub_or_in_the_hub_itself_nothing_takes_turns() -> None:
    assert turns.current() is None
    hub, seen = Turns(), list[object]()
    hub.start(lambda: seen.append(turns.current()))
    hub.run()
    assert seen == [hub]
    assert turns.current() is None  # the run is over
