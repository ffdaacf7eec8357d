"""The controller alone, on a manual clock: timers, windows, pauses, records."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from slapjack.bots import SlapIntent, make_bot
from slapjack.core import Record, View, replay
from slapjack.core.events import Forfeit, NoSlap, RaceWon, Slapped
from slapjack.live import seat_bot_seed
from slapjack.tui import GameConfig, GameController, ManualClock, SeatSpec
from slapjack.tui.config import ConfigError
from slapjack.tui.render import view_ranking

from .util import FAST, ScriptedBot, config, deck, human


def start(cfg: GameConfig, bots: dict[str, ScriptedBot] | None = None):
    clock = ManualClock()
    table = bots or {}
    c = GameController(cfg, clock, bot_factory=lambda level, seed: table[level])
    c.start()
    return c, clock


def anna_ben(cards, **options: object) -> GameConfig:
    return config([human(0, "Anna"), SeatSpec("Ben", "casual")], cards, **options)


def run_bots_only(c: GameController, clock: ManualClock) -> None:
    """Play to the end: each card counts as shown at once, time jumps to the next timer."""
    for _ in range(100_000):
        if c.game.over:
            return
        if not c.state.shown:
            c.shown(c.cue)
            continue
        due = clock.next_due()
        assert due is not None, f"hangs: turn {c.game.turn}, race {c.game.race_open}"
        clock.advance(due - clock.now())
        c.game.check_invariant()
    raise AssertionError("no end")


@pytest.mark.parametrize(
    "preset", ["classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"]
)
@pytest.mark.parametrize("seed", [1, 2])
def test_bot_games_finish_and_their_records_replay(preset: str, seed: int, tmp_path: Path) -> None:
    from slapjack.core import Rules

    levels = ["beginner", "casual", "pro", "perfect"]
    seats = tuple(SeatSpec(f"P{i}", levels[i]) for i in range(4))
    cfg = GameConfig(Rules.from_options({"preset": preset}), seats, seed=seed, timing=FAST)
    clock = ManualClock()
    c = GameController(cfg, clock)  # the real bots
    c.start()
    run_bots_only(c, clock)
    assert c.game.over and c.game.winners
    # the online results rank from the view alone, in the engine's order
    assert view_ranking(c.state.view) == c.game.ranking()
    path = c.save(tmp_path)
    again = replay(Record.from_json(path.read_text(encoding="utf-8")), check=True)
    assert again.game.snapshot() == c.game.snapshot()


def test_same_seed_same_game() -> None:
    seats = (SeatSpec("A", "casual"), SeatSpec("B", "pro"), SeatSpec("C", "beginner"))
    ends = []
    for _ in range(2):
        clock = ManualClock()
        c = GameController(GameConfig(seats=seats, seed=99, timing=FAST), clock)
        c.start()
        run_bots_only(c, clock)
        ends.append((c.game.snapshot(), c.table.record.to_json()))
    assert ends[0] == ends[1]


def test_reaction_time_counts_from_the_card_on_screen_not_from_the_flip() -> None:
    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot()})
    assert c.flip(None)
    clock.advance_ms(40)  # the screen took 40 ms to draw it
    c.shown(c.cue)
    clock.advance_ms(230)
    c.slap(0)
    assert c.state.log[-1] == Slapped(0, 230.0)


def test_key_time_is_the_key_event_not_when_it_is_handled() -> None:
    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot()})
    c.flip(None)
    c.shown(c.cue)
    pressed = clock.now() + 0.180
    clock.advance_ms(195)  # handled 15 ms after the key went down
    c.slap(0, at=pressed)
    assert c.state.log[-1] == Slapped(0, 180.0)


def test_paused_time_is_not_reaction_time() -> None:
    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot()})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(100)
    c.pause()
    before = c.now_ms()
    clock.advance_ms(5000)
    assert c.now_ms() == before
    c.slap(0)  # keys do nothing while paused
    assert not [e for e in c.state.log if isinstance(e, Slapped)]
    c.resume()
    clock.advance_ms(100)
    c.slap(0)
    assert c.state.log[-1] == Slapped(0, 200.0)


def test_a_race_closes_the_window_after_its_first_slap() -> None:
    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot(jack_ms=1800, flip_ms=5000)})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(1000)  # nobody yet: the race waits for a first slap
    assert c.game.race_open
    c.slap(0)
    clock.advance_ms(599)
    assert c.game.race_open  # the window (600 ms) for a key on its way
    clock.advance_ms(2)
    assert not c.game.race_open  # Ben's slap at 1800 comes too late
    won = [e for e in c.state.log if isinstance(e, RaceWon)]
    assert won == [RaceWon(0, 1, ((0, 1000.0),))]


def test_a_race_closes_as_soon_as_everyone_slapped() -> None:
    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot(jack_ms=1200, flip_ms=5000)})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(1000)
    c.slap(0)
    clock.advance_ms(199)
    assert c.game.race_open
    clock.advance_ms(2)  # Ben slaps at 1200: every seat has, the race is decided
    assert not c.game.race_open
    won = [e for e in c.state.log if isinstance(e, RaceWon)]
    assert won == [RaceWon(0, 1, ((0, 1000.0), (1, 1200.0)))]


def test_a_key_pressed_in_time_but_handled_late_still_counts() -> None:
    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot(jack_ms=300, flip_ms=5000)})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(300)  # Ben slaps at 300: after the window ends, the grace runs
    clock.advance_ms(310)  # 610
    pressed = clock.now() - 0.330  # Anna's key went down at 280 but is handled now
    c.slap(0, at=pressed)
    clock.advance_ms(40)
    won = [e for e in c.state.log if isinstance(e, RaceWon)]
    assert won == [RaceWon(0, 1, ((0, 280.0), (1, 300.0)))]


class LateClock(ManualClock):
    """Every timer fires ``lag_ms`` late, as real timers do on a busy machine."""

    def __init__(self, lag_ms: float) -> None:
        super().__init__()
        self.lag = lag_ms / 1000.0

    def call_later(self, delay: float, callback):  # type: ignore[no-untyped-def]
        return super().call_later(delay + self.lag, callback)


def test_a_late_timer_cannot_let_a_slower_slap_win() -> None:
    clock = LateClock(100)
    cfg = anna_ben(deck("JC"))
    bot = ScriptedBot(jack_ms=612, flip_ms=5000)
    c = GameController(cfg, clock, bot_factory=lambda level, seed: bot)
    c.start()
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(615)
    assert c.game.race_open  # Ben's slap, due at 612, waits for its late timer
    c.slap(0)  # Anna at 615: Ben's slap, due before, goes in first, at its own time
    assert not c.game.race_open  # both slapped: decided
    won = [e for e in c.state.log if isinstance(e, RaceWon)]
    assert won == [RaceWon(1, 1, ((1, 612.0), (0, 615.0)))]


def test_equal_bot_reactions_after_the_window_both_count() -> None:
    bots = {"casual": ScriptedBot(jack_ms=800, flip_ms=5000), "pro": ScriptedBot(jack_ms=800)}
    seats = [human(0, "Anna"), SeatSpec("Ben", "casual"), SeatSpec("Carla", "pro")]
    c, clock = start(config(seats, deck("JC"), tie="split"), bots)
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(1350)  # both at 800, the window 600 ms after
    assert c.game.race_open
    clock.advance_ms(100)
    assert not c.game.race_open
    shares = [e for e in c.state.log if type(e).__name__ == "PileSplit"]
    assert len(shares) == 1 and dict(shares[0].shares) == {1: 1, 2: 0}


def test_nobody_slaps_the_jack_it_stays_buried() -> None:
    c, clock = start(anna_ben(deck("JC", "5D")), {"casual": ScriptedBot(flip_ms=100)})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(2999)
    assert c.game.race_open
    clock.advance_ms(2)
    assert [e for e in c.state.log if isinstance(e, NoSlap)] == [NoSlap(40)]
    assert c.game.turn == 1
    clock.advance_ms(100)
    assert c.game.flips == 2 and c.state.view.centre_size == 2


def test_say_it_call_first_then_slap() -> None:
    c, clock = start(anna_ben(deck("JC"), preset="say-it"), {"casual": ScriptedBot()})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(150)
    c.call(0)
    clock.advance_ms(60)
    c.slap(0)
    assert c.state.log[-1] == Slapped(0, 210.0, True)
    clock.advance_ms(600)
    assert [e.winner for e in c.state.log if isinstance(e, RaceWon)] == [0]


def test_say_it_slap_without_call_forfeits_after_the_call_window() -> None:
    c, clock = start(anna_ben(deck("JC"), preset="say-it"), {"casual": ScriptedBot()})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(150)
    c.slap(0)
    clock.advance_ms(499)
    assert not [e for e in c.state.log if isinstance(e, Slapped)]
    clock.advance_ms(2)
    assert [e for e in c.state.log if isinstance(e, Slapped)] == [Slapped(0, 150.0, False)]
    clock.advance_ms(600)
    assert [e.seat for e in c.state.log if isinstance(e, Forfeit)] == [0]


class OddBot:
    level = "odd"

    def __init__(self, value: float) -> None:
        self.value = value

    def react(self, view: View) -> SlapIntent | None:
        return SlapIntent(self.value)

    def flip_delay_ms(self, view: View) -> float:
        return self.value


@pytest.mark.parametrize("value", [math.nan, -5.0, math.inf, 1e9])
def test_bad_bot_numbers_are_ignored_not_crashed_on(value: float) -> None:
    clock = ManualClock()
    cfg = config([SeatSpec("Ben", "casual"), human(1, "Anna")], deck("JC"))
    c = GameController(cfg, clock, bot_factory=lambda level, seed: OddBot(value))
    c.start()
    clock.advance_ms(10_001)  # a bad flip delay counts as none, a huge one as 10 s
    assert c.game.flips == 1
    c.shown(c.cue)
    assert not any(name.startswith("bot:") for name in c.scheduled())
    clock.advance_ms(5000)
    assert [e for e in c.state.log if isinstance(e, NoSlap)]


def test_config_errors_are_typed_and_translated() -> None:
    seats = (human(0, "Anna"), human(1, "Anna"))
    with pytest.raises(ConfigError) as info:
        GameConfig(seats=seats).validate()
    assert info.value.text("de") == "Namen müssen verschieden sein: Anna kommt doppelt vor."
    with pytest.raises(ConfigError, match="2 to 10"):
        GameConfig(seats=(human(0, "Anna"),)).validate()
    with pytest.raises(ConfigError, match="one character"):
        GameConfig(seats=(SeatSpec("Anna", None, "ab"), SeatSpec("Ben", "pro"))).validate()
    with pytest.raises(ValueError, match="2\\*\\*64"):
        GameConfig(seed=2**64).validate()
    with pytest.raises(ConfigError, match="needs a slap key"):
        GameConfig(seats=(SeatSpec("Anna"), SeatSpec("Ben", "pro"))).validate()


def test_save_never_overwrites(tmp_path: Path) -> None:
    c, _clock = start(anna_ben(deck("5C")), {"casual": ScriptedBot()})
    paths = {c.save(tmp_path) for _ in range(3)}
    assert len(paths) == 3 and all(p.exists() for p in paths)


def test_real_bots_are_made_from_the_seed() -> None:
    seats = (human(0, "Anna"), SeatSpec("Ben", "pro"))
    c = GameController(GameConfig(seats=seats, seed=5), ManualClock())
    bot = c.live.seating.bots.get(1)
    assert bot is not None
    same = make_bot("pro", seat_bot_seed(5, 1))
    assert bot.flip_delay_ms(c.state.view) == same.flip_delay_ms(c.state.view)


def test_default_seats_never_clash_with_the_bot_names() -> None:
    from slapjack.tui.config import default_seats

    assert [s.name for s in default_seats(4, "Ben")] == ["Anna", "Ben", "Carla", "Dan"]
    assert default_seats(3, "Zoe")[0] == SeatSpec("Zoe", None, "a", "z", "q")


def test_a_slap_faster_than_any_reaction_is_a_guess_and_cannot_win() -> None:
    from slapjack.tui.render import reactions_text
    from slapjack.tui.state import Note

    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot(jack_ms=250, flip_ms=5000)})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(60)
    c.slap(0)
    assert c.state.log[-2:] == (
        Slapped(0, 5060.0),
        Note("false_start", (("seat", 0), ("ms", 60.0))),
    )
    clock.advance_ms(700)
    won = [e for e in c.state.log if isinstance(e, RaceWon)]
    assert won == [RaceWon(1, 1, ((1, 250.0), (0, 5060.0)))]
    line = reactions_text(won[0].reactions, c.game.players, "en").plain.replace("\xa0", " ")
    assert line == "Ben 250 ms · Anna 60 ms (guess)"
    assert c.state.stats[0].fastest is None and c.state.stats[1].fastest == 250.0


def test_reactions_are_whole_milliseconds() -> None:
    c, clock = start(anna_ben(deck("JC")), {"casual": ScriptedBot()})
    c.flip(None)
    c.shown(c.cue)
    clock.advance_ms(212.4)
    c.slap(0)
    assert c.state.log[-1] == Slapped(0, 212.0)
