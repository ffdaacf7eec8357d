"""``kill -9`` at every kind of moment of a game, a restart on the same data
directory, every seat back with its token: each seat's first view after the
restart is the last one it saw before (see ``crashkit``), and the game goes on
from there with its 52 cards.

The moments that matter most are decisions taken without a following flip: a
race closed by the no-slap timeout, because every seat had slapped, by the
referee's window, at the end of a say-it call wait, the pile handed back when
nobody can flip, and the end of the game. Decks are stacked so that with every
seat flipping in turn, deck position *i* is the *i*-th card flipped. Every
moment runs on SQLite; five of them also on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from .crashkit import CrashKit, crash_kit, stacked
from .test_postgres import fresh_schema

THREE = ("Anna", "Ben", "Carla")


async def settled(kit: CrashKit) -> None:
    await kit.until(lambda v: not v["race_open"])


async def unchanged_after(kit: CrashKit, act: Callable[[], Awaitable[None]]) -> None:
    """``act`` (a slap that must be ignored) changes no seat's view."""
    views = [kit.view(s) for s in range(len(kit.clients))]
    await act()
    await kit.quiet()
    for s, view in enumerate(views):
        assert kit.view(s) == view, f"seat {s}'s view changed"
        assert not kit.clients[s].errors(), kit.clients[s].errors()


# ------------------------------------------------------------------ moments


async def plain_flip(kit: CrashKit) -> None:
    await kit.room(deck=stacked(["2C", "3C", "4C"]))
    await kit.flips(3)
    await kit.crash()
    assert kit.view()["turn"] == 1 and kit.view()["flips"] == 3
    await kit.flip()
    kit.check_cards()


async def open_race(kit: CrashKit) -> None:
    """A Jack nobody has slapped yet: the race is open again after the restart."""
    await kit.room(deck=stacked(["2C", "3C", "JS"]))
    await kit.flips(3)
    assert kit.view()["race_open"]
    await kit.crash()
    await kit.slap(1, 210.0)
    await kit.slap(0, 250.0)
    await settled(kit)
    assert kit.view()["stacks"] == [24, 28]  # Ben's 210 ms won: the room still trusts claims
    kit.check_cards()


async def open_race_slapped_irish(kit: CrashKit) -> None:
    """An Irish Snap match two of three seats have slapped (no referee window:
    it stays open until the third slaps or the timeout)."""
    await kit.room(THREE, preset="irish-snap", deck=stacked(["5C", "2C"], irish=True))
    await kit.flips(2)
    await kit.slap(0, 200.0)
    await kit.slap(2, 300.0)
    await kit.until(lambda v: v["race_open"] and v["slapped"] == [0, 2])
    await kit.crash()
    await kit.slap(1, 250.0)
    await settled(kit)
    assert kit.view()["stacks"] == [17, 16, 19]  # Carla's 300 ms was the last hand
    kit.check_cards()


async def open_race_slapped(kit: CrashKit) -> None:
    """A Jack with one slap in: the referee's window (counted again from the
    restart) settles it for that slap, and nothing else can."""
    await kit.room(THREE, deck=stacked(["JS"]))
    await kit.flips(1)
    await kit.slap(1, 240.0)
    await kit.until(lambda v: v["slapped"] == [1])
    await kit.crash(may_settle=True)
    await settled(kit)
    assert kit.view()["stacks"] == [17, 18, 17]
    kit.check_cards()


async def race_timeout(kit: CrashKit) -> None:
    """A Jack nobody slapped, closed by the no-slap timeout: it stays buried.
    (The timeout is long enough that a race wrongly opened again by the
    restart would still be open when the seats are back.)"""
    await kit.room(deck=stacked(["2C", "3C", "JS"]), timing={"jack_timeout_ms": 1200.0})
    await kit.flips(3)
    await kit.until(lambda v: not v["race_open"] and v["turn"] == 1)
    await kit.crash()
    assert not kit.view()["race_open"] and kit.view()["turn"] == 1
    await unchanged_after(kit, lambda: kit.slap(0, 100.0))
    await kit.flip()
    kit.check_cards()


async def all_slapped(kit: CrashKit) -> None:
    """Every seat slapped: the race is won at once, before any timer."""
    await kit.room(deck=stacked(["2C", "3C", "JS"]))
    await kit.flips(3)
    await kit.slap(1, 210.0)
    await kit.slap(0, 250.0)
    await settled(kit)
    await kit.crash()
    assert kit.view()["stacks"] == [24, 28] and kit.view()["turn"] == 0
    await kit.flip()
    kit.check_cards()


async def won_jack_slap_after(kit: CrashKit) -> None:
    """A Jack won by Ben (the window closed): a slap after the restart is
    ignored, the pile stays with Ben."""
    await kit.room(THREE, deck=stacked(["JS"]))
    await kit.flips(1)
    await kit.slap(1, 240.0)
    await settled(kit)
    await kit.crash()
    assert kit.view()["stacks"] == [17, 18, 17] and kit.view()["centre_size"] == 0

    async def late_slaps() -> None:
        await kit.slap(0, 100.0)
        await kit.slap(2, 120.0)

    await unchanged_after(kit, late_slaps)
    await kit.flip()  # Carla, left of the winner
    kit.check_cards()


async def irish_all_slapped(kit: CrashKit) -> None:
    """Irish Snap: every seat slapped the match, the last hand picked it up."""
    await kit.room(THREE, preset="irish-snap", deck=stacked(["5C", "2C"], irish=True))
    await kit.flips(2)
    await kit.slap(0, 200.0)
    await kit.slap(1, 250.0)
    await kit.slap(2, 300.0)
    await settled(kit)
    await kit.crash()
    assert kit.view()["stacks"] == [17, 16, 19]
    await unchanged_after(kit, lambda: kit.slap(2, 100.0))
    await kit.flip()
    kit.check_cards()


async def irish_missed(kit: CrashKit) -> None:
    """Irish Snap: Carla did not slap the match; the timeout made her pick it up."""
    await kit.room(
        THREE,
        preset="irish-snap",
        deck=stacked(["5C", "2C"], irish=True),
        timing={"irish_timeout_ms": 1200.0},
    )
    await kit.flips(2)
    await kit.slap(0, 200.0)
    await kit.slap(1, 250.0)
    await settled(kit)
    await kit.crash()
    assert kit.view()["stacks"] == [17, 16, 19]

    async def late_slaps() -> None:
        await kit.slap(2, 100.0)
        await kit.slap(0, 100.0)

    await unchanged_after(kit, late_slaps)
    await kit.flip()
    kit.check_cards()


async def say_it_call_wait(kit: CrashKit) -> None:
    """Say-it: Ben's slap without a call is waiting for its call (nobody saw
    it yet) when the server dies; after the restart he slaps again, calling."""
    await kit.room(preset="say-it", deck=stacked(["JS"]))
    await kit.flips(1)
    await kit.slap(1, 200.0)
    await kit.quiet()
    assert kit.view()["race_open"] and kit.view()["slapped"] == []
    await kit.crash()
    await kit.slap(1, 200.0, call=True)
    await kit.until(lambda v: v["slapped"] == [1])
    await kit.slap(0, 260.0, call=True)
    await settled(kit)
    assert kit.view()["stacks"] == [25, 27]
    kit.check_cards()


async def say_it_call_ends(kit: CrashKit) -> None:
    """Say-it: the call wait ends, Ben's uncalled slap counts, every seat has
    slapped and the race is settled (Ben fastest without the call: he forfeits)."""
    await kit.room(preset="say-it", deck=stacked(["JS"]), timing={"call_grace_ms": 80.0})
    await kit.flips(1)
    await kit.slap(0, 260.0, call=True)
    await kit.until(lambda v: v["slapped"] == [0])
    await kit.slap(1, 200.0)
    await settled(kit)
    await kit.crash()
    assert kit.view()["stacks"] == [26, 26] and kit.view()["turn"] == 0
    await kit.flip()
    kit.check_cards()


async def say_it_call_ends_at_timeout(kit: CrashKit) -> None:
    """Say-it: the race's timeout ends Ben's call wait; his uncalled slap counts
    and the race is settled at once."""
    await kit.room(preset="say-it", deck=stacked(["JS"]), timing={"jack_timeout_ms": 300.0})
    await kit.flips(1)
    await kit.slap(1, 200.0)
    await settled(kit)
    await kit.crash()
    assert kit.view()["stacks"] == [26, 26]
    await kit.flip()
    kit.check_cards()


async def play_to_the_end(kit: CrashKit) -> None:
    """Both seats flip every card; three Jacks time out, Anna wins the last one
    (Ben's last card) with all 52 cards and Ben is out."""
    await kit.room(deck=stacked([], last=["JS"]), timing={"jack_timeout_ms": 250.0})
    await kit.flips(52)
    await kit.slap(0, 200.0)
    await kit.slap(1, 300.0)
    await kit.until(lambda v: v["over"])
    await kit.until_room(lambda r: r["status"] == "over" and r["game_id"] is not None)


async def game_over(kit: CrashKit) -> None:
    """The game ended in a race: over, with its id in the history."""
    await play_to_the_end(kit)
    await kit.crash()
    assert kit.room_of()["status"] == "over" and kit.view()["winners"] == [0]
    final = await kit.replay_finished()
    assert final["finished"] and final["winners"] == ["Anna"]
    assert [len(s) for s in final["stacks"].values()] == kit.view()["stacks"]
    await kit.rematch(0)
    await kit.rematch(1)
    await kit.until_room(lambda r: r["status"] == "playing" and r["game_no"] == 2)
    await kit.flip()
    kit.check_cards()


async def rematch(kit: CrashKit) -> None:
    """Anna asked for a rematch, Ben not yet; then, in the rematch game, again."""
    await play_to_the_end(kit)
    await kit.rematch(0)
    await kit.until_room(lambda r: r["rematch"] == [0])
    await kit.crash()
    assert kit.room_of()["rematch"] == [0] and kit.room_of()["status"] == "over"
    await kit.rematch(1)
    await kit.until_room(lambda r: r["status"] == "playing" and r["game_no"] == 2)
    await kit.flips(2)
    await kit.crash()  # the room still names the finished game
    await kit.flip()
    kit.check_cards()


async def deadlock(kit: CrashKit) -> None:
    """Every card flipped, every Jack timed out: nobody can flip, the pile goes
    back to Ben (who flipped last) by the deadlock rule."""
    timing = {"jack_timeout_ms": 200.0, "deadlock_ms": 1200.0}
    await kit.room(deck=stacked([], last=["5C"]), timing=timing)
    await kit.flips(52)
    await kit.until(lambda v: v["turn"] == 1 and v["centre_size"] == 0)
    await kit.crash()
    assert kit.view()["stacks"] == [0, 52]
    await kit.flip()
    kit.check_cards()


async def reslap_round(kit: CrashKit) -> None:
    """An exact tie opened a reslap round for Anna and Ben: after the restart
    Carla (not tied) cannot slap, Ben's faster reslap wins."""
    await kit.room(THREE, deck=stacked(["JS"]))
    await kit.flips(1)
    await kit.slap(0, 300.0)
    await kit.slap(1, 300.0)
    await kit.slap(2, 350.0)
    await kit.until(lambda v: v["reslap_among"] == [0, 1])
    await kit.crash()
    await unchanged_after(kit, lambda: kit.slap(2, 100.0))
    await kit.slap(0, 280.0)
    await kit.slap(1, 260.0)
    await settled(kit)
    assert kit.view()["stacks"] == [17, 18, 17]
    kit.check_cards()


MOMENTS = [
    plain_flip,
    open_race,
    open_race_slapped,
    open_race_slapped_irish,
    race_timeout,
    all_slapped,
    won_jack_slap_after,
    irish_all_slapped,
    irish_missed,
    say_it_call_wait,
    say_it_call_ends,
    say_it_call_ends_at_timeout,
    game_over,
    rematch,
    deadlock,
    reslap_round,
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("moment", MOMENTS, ids=[m.__name__ for m in MOMENTS])
async def test_kill_9_at_this_moment(
    tmp_path: Path, moment: Callable[[CrashKit], Awaitable[None]]
) -> None:
    async with crash_kit(tmp_path) as kit:
        await moment(kit)


@pytest.fixture
def pg_schema_url() -> Iterator[str]:
    """A fresh PostgreSQL schema for one test, dropped afterwards."""
    yield from fresh_schema("slapjack_crash")


ON_POSTGRES = [race_timeout, irish_missed, say_it_call_ends, rematch, reslap_round]


@pytest.mark.postgres
@pytest.mark.timeout(120)
@pytest.mark.parametrize("moment", ON_POSTGRES, ids=[m.__name__ for m in ON_POSTGRES])
async def test_kill_9_at_this_moment_on_postgresql(
    tmp_path: Path, pg_schema_url: str, moment: Callable[[CrashKit], Awaitable[None]]
) -> None:
    """The same moments with the store in PostgreSQL (``--database-url``)."""
    async with crash_kit(tmp_path, pg_schema_url) as kit:
        await moment(kit)
