"""The terminal client follows ``moved``: to the owner it names (with jitter),
the same address again when none is named, and the other servers it knows
when a node is gone (two small WebSocket servers stand in for nodes)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets

from slapjack.protocol import FrameError, Moved, decode_server_frame
from slapjack.tui.online import OnlineClient, Target, moved_delay


class Recorder:
    def __init__(self) -> None:
        self.welcomes: list[Any] = []
        self.statuses: list[str] = []
        self.bad: list[str] = []

    def on_welcome(self, msg: Any) -> None:
        self.welcomes.append(msg)

    def on_update(self, msg: Any) -> None: ...

    def on_server_error(self, msg: Any) -> None: ...

    def on_bad_frame(self, what: str) -> None:
        self.bad.append(what)

    def on_status(self, status: str, detail: Any) -> None:
        self.statuses.append(status)


ROOM = {
    "code": "MOV123",
    "name": "Room MOV123",
    "game": "slapjack",
    "preset": "classic",
    "rules": {"preset": "classic"},
    "seats": [{"seat": 0, "name": "Anna", "bot": None, "connected": True}],
    "status": "waiting",
    "free_seats": 0,
    "spectators": 0,
    "tempo": "turn_timer",
    "turn_seconds": 5.0,
    "time_limit": 0,
    "public": True,
    "url": "/r/MOV123",
    "game_no": 0,
}


def test_the_moved_frame_is_typed_and_checked() -> None:
    text = json.dumps(
        {
            "type": "moved",
            "code": "MOV123",
            "node": "b",
            "url": "https://x.org/n/b",
            "ws": "wss://x.org/n/b/ws/MOV123",
            "retry_ms": 0,
            "reason": "elsewhere",
        }
    )
    msg = decode_server_frame(text)
    assert isinstance(msg, Moved) and msg.ws == "wss://x.org/n/b/ws/MOV123"
    for bad in ({"reason": "because"}, {"retry_ms": -1}, {"retry_ms": 10**6}):
        with pytest.raises(FrameError, match=r"reason|retry_ms"):
            decode_server_frame(json.dumps({**json.loads(text), **bad}))


def test_a_move_waits_its_retry_plus_up_to_as_much_again() -> None:
    assert moved_delay(200, lambda: 0.0) == pytest.approx(0.2)
    assert moved_delay(200, lambda: 0.999) == pytest.approx(0.3998)
    assert moved_delay(0, lambda: 0.5) == pytest.approx(0.03)  # at least 20 ms, jittered
    assert Target("https://x.org/n/b", "MOV123").ws_url == "wss://x.org/n/b/ws/MOV123"


async def test_the_client_follows_moved_to_the_owner_and_back_when_it_dies() -> None:
    hellos: dict[str, list[Any]] = {"a": [], "b": []}
    owner_port: list[int] = []
    stop_b = asyncio.Event()

    async def node_a(ws: Any) -> None:  # runs nothing: sends every client on to b
        hellos["a"].append(json.loads(await ws.recv()))
        url = f"http://127.0.0.1:{owner_port[0]}"
        await ws.send(
            json.dumps(
                {
                    "type": "moved",
                    "code": "MOV123",
                    "node": "b",
                    "url": url,
                    "ws": f"ws://127.0.0.1:{owner_port[0]}/ws/MOV123",
                    "retry_ms": 10,
                    "reason": "elsewhere",
                }
            )
        )
        await ws.close(4010, "moved")

    async def node_b(ws: Any) -> None:  # the owner
        hellos["b"].append(json.loads(await ws.recv()))
        await ws.send(
            json.dumps(
                {"type": "welcome", "v": 1, "room": ROOM, "seat": 0, "name": "Anna", "id": None}
            )
        )
        await stop_b.wait()
        await ws.close(1012, "restart")

    async with (
        websockets.serve(node_a, "127.0.0.1", 0) as a,
        websockets.serve(node_b, "127.0.0.1", 0) as b,
    ):
        owner_port.append(b.sockets[0].getsockname()[1])
        a_url = f"http://127.0.0.1:{a.sockets[0].getsockname()[1]}"
        rec = Recorder()
        client = OnlineClient(Target(a_url, "MOV123"), "tok", rec)
        task = asyncio.create_task(client.run())
        for _ in range(300):
            if rec.welcomes:
                break
            await asyncio.sleep(0.01)
        assert len(rec.welcomes) == 1 and client.moves == 1, rec.bad
        assert client.target.server == f"http://127.0.0.1:{owner_port[0]}"
        assert [h["token"] for h in hellos["a"] + hellos["b"]] == ["tok", "tok"]
        assert client.servers == [a_url, client.target.server]
        b.close()  # the owner dies: the client asks the other server it knows
        stop_b.set()
        await b.wait_closed()
        for _ in range(500):
            if len(hellos["a"]) >= 2:
                break
            await asyncio.sleep(0.01)
        assert len(hellos["a"]) >= 2, rec.statuses
        await client.close()
        task.cancel()


async def test_a_moved_sent_before_the_hello_is_still_followed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cluster node says ``moved`` and closes as soon as it accepts, without
    waiting for the hello; on a slow client the close has come by the time the
    hello goes out, and the frame before it must still be read and followed
    (not retried blind at the same node: one move, straight to the owner)."""
    connects: list[int] = []
    owner_port: list[int] = []
    done = asyncio.Event()

    async def node_a(ws: Any) -> None:
        url = f"http://127.0.0.1:{owner_port[0]}"
        frame = {"type": "moved", "code": "MOV123", "node": "b", "url": url}
        frame |= {"ws": f"ws://127.0.0.1:{owner_port[0]}/ws/MOV123", "retry_ms": 0}
        await ws.send(json.dumps(frame | {"reason": "elsewhere"}))
        await ws.close(4010, "moved")

    async def node_b(ws: Any) -> None:
        await ws.recv()
        welcome = {"type": "welcome", "v": 1, "room": ROOM, "seat": 0, "name": "Anna", "id": None}
        await ws.send(json.dumps(welcome))
        await done.wait()

    real_connect = websockets.connect

    class SlowClient:
        """``websockets.connect`` on a client that gets to its hello only after
        the server's close has arrived."""

        def __init__(self, url: str, **kw: Any) -> None:
            self.inner = real_connect(url, **kw)
            connects.append(int(url.split(":")[2].split("/")[0]))

        async def __aenter__(self) -> Any:
            ws = await self.inner.__aenter__()
            if connects[-1] != owner_port[0]:
                await ws.wait_closed()
            return ws

        async def __aexit__(self, *exc: Any) -> Any:
            return await self.inner.__aexit__(*exc)

    monkeypatch.setattr(websockets, "connect", SlowClient)
    async with (
        websockets.serve(node_a, "127.0.0.1", 0) as a,
        websockets.serve(node_b, "127.0.0.1", 0) as b,
    ):
        owner_port.append(b.sockets[0].getsockname()[1])
        a_port = a.sockets[0].getsockname()[1]
        rec = Recorder()
        client = OnlineClient(Target(f"http://127.0.0.1:{a_port}", "MOV123"), "tok", rec)
        task = asyncio.create_task(client.run())
        for _ in range(300):
            if rec.welcomes:
                break
            await asyncio.sleep(0.01)
        assert len(rec.welcomes) == 1, rec.statuses
        assert client.moves == 1 and connects == [a_port, owner_port[0]]
        done.set()
        await client.close()
        task.cancel()
