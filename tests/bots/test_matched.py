"""The ``matched`` bot: the median tracker, the fair aim, learning from real games, the hook."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Collection, Sequence

import pytest

from slapjack.bots import (
    LEVELS,
    PROFILES,
    TYPICAL_MEDIAN_MS,
    BotError,
    HumanBot,
    MatchedBot,
    MedianTracker,
    Noticing,
    UnknownBotLevel,
    make_bot,
    notice_bots,
    person_reaction,
)
from slapjack.bots.matched import fair_factor, race_chance
from slapjack.core import Rules, shuffled_deck
from slapjack.core.events import Eliminated, Event, Flipped, PickedUp, RaceWon
from slapjack.sim import game_seed, play_game

from .util import view_after_flip

CLASSIC = Rules.from_options({"preset": "classic"})


# ------------------------------------------------------------ make_bot


def test_matched_is_a_level_and_starts_from_the_prior() -> None:
    assert "matched" in LEVELS
    bot = make_bot("matched", 3)
    assert isinstance(bot, MatchedBot) and isinstance(bot, Noticing)
    assert bot.level == "matched"
    assert bot.estimate_ms == pytest.approx(TYPICAL_MEDIAN_MS)
    # Before it has seen anyone it aims a little below the prior (see fair_factor).
    assert bot.aim_ms == pytest.approx(TYPICAL_MEDIAN_MS * fair_factor(3, 0))
    assert 0.9 * TYPICAL_MEDIAN_MS < bot.aim_ms < TYPICAL_MEDIAN_MS


def test_other_levels_have_no_hook() -> None:
    for level in ("beginner", "casual", "pro", "perfect"):
        assert not isinstance(make_bot(level, 1), Noticing)


@pytest.mark.parametrize("ms", [150, 400, 612.5, 1500])
def test_a_simulated_person_has_the_median_asked_for(ms: float) -> None:
    bot = make_bot(f"human:{ms:g}", 1)
    assert type(bot) is HumanBot and bot.level == f"human:{ms:g}"
    assert bot.profile.reaction.median == pytest.approx(ms)
    assert bot.profile.lapse == PROFILES["casual"].lapse


@pytest.mark.parametrize("level", ["human:", "human:abc", "human:99", "human:2000", "human:nan"])
def test_a_bad_person_level_is_a_typed_error(level: str) -> None:
    with pytest.raises(UnknownBotLevel) as info:
        make_bot(level, 0)
    assert info.value.code == "unknown_bot_level"
    assert "human:400" in str(info.value)


def test_a_bad_seed_is_a_typed_error_for_matched_too() -> None:
    with pytest.raises(BotError):
        make_bot("matched", "1")  # type: ignore[arg-type]


# ------------------------------------------------------------ the tracker


def test_tracker_without_censoring_is_the_middle_order_statistic() -> None:
    rng = random.Random(5)
    for n in range(1, 30):
        tracker = MedianTracker(425.0)
        values = [rng.uniform(200.0, 900.0) for _ in range(n)]
        for v in values:
            tracker.observe(v)
        assert tracker.median == pytest.approx(sorted(values)[(n + 1) // 2 - 1])
        assert tracker.exact == tracker.seen == n


def test_tracker_keeps_the_prior_until_it_sees_something() -> None:
    tracker = MedianTracker(380.0)
    assert tracker.median == 380.0 and tracker.seen == 0
    tracker.observe(math.nan)
    tracker.censored(math.inf)
    assert tracker.median == 380.0 and tracker.seen == 0


def test_censored_times_count_as_slower() -> None:
    tracker = MedianTracker(425.0)
    for v in (300.0, 310.0, 320.0):
        tracker.observe(v)
    assert tracker.median == 310.0
    # Three reactions known only to be slower than 315 ms: more than half are slow.
    for _ in range(3):
        tracker.censored(315.0)
    assert tracker.median == 320.0
    assert tracker.exact == 3 and tracker.seen == 6
    # Known to be slower than 305 ms says less: they may lie between 305 and 310.
    tracker = MedianTracker(425.0)
    for v in (300.0, 310.0, 320.0):
        tracker.observe(v)
    for _ in range(3):
        tracker.censored(305.0)
    assert tracker.median == 310.0


def test_all_censored_fits_the_person_model() -> None:
    tracker = MedianTracker(425.0)
    tracker.censored(300.0)
    assert tracker.median == pytest.approx(425.0, rel=0.01)  # above 300: little news
    tracker.censored(700.0)
    assert tracker.median > 500.0  # slower than 700 ms once: probably a slow person
    # Mostly censored just above the fastest, seldom seen: the model's scale fits.
    rng = random.Random(3)
    person = person_reaction(480.0).sampler(rng)
    tracker = MedianTracker(425.0)
    for _ in range(40):
        t = person()
        if t <= 400.0:
            tracker.observe(t)
        else:
            tracker.censored(400.0)
    assert tracker.exact < tracker.seen / 2  # the Kaplan-Meier median is not defined
    assert tracker.median == pytest.approx(480.0, rel=0.08)


def test_tracker_forgets_beyond_its_window() -> None:
    tracker = MedianTracker(425.0, window=5)
    for _ in range(5):
        tracker.observe(300.0)
    for _ in range(5):
        tracker.observe(600.0)
    assert tracker.median == 600.0 and tracker.seen == 5


def test_tracker_clamps_to_person_medians() -> None:
    tracker = MedianTracker(425.0)
    tracker.observe(20.0)
    assert tracker.median == 150.0
    tracker = MedianTracker(425.0)
    tracker.observe(9000.0)
    assert tracker.median == 1500.0


@pytest.mark.parametrize("prior", [100.0, 2000.0, math.nan])
def test_tracker_rejects_an_impossible_prior(prior: float) -> None:
    with pytest.raises(ValueError):
        MedianTracker(prior)
    with pytest.raises(ValueError):
        MedianTracker(400.0, window=0)


def test_censoring_is_what_keeps_a_slow_person_slow() -> None:
    """The fair referee settles a race soon after the fastest slap, so a slow
    person is listed only when quick. Through the bot's own notice(): dropping
    the missing reactions would make a 500 ms person look like a 420 ms one;
    counting them as slower than the slowest listed slap does not."""
    rng = random.Random(8)
    person = person_reaction(500.0).sampler(rng)
    others = person_reaction(420.0).sampler(rng)
    errors, naive = [], []
    for _ in range(150):
        bot = make_bot("matched", 1)
        assert isinstance(bot, MatchedBot)
        listed_mine = []
        for _race in range(30):
            times = {0: person(), 1: others(), 2: others(), 3: others()}
            cutoff = min(times.values()) + 20.0  # open 20 ms after the best reaction
            listed = sorted((t, s) for s, t in times.items() if t <= cutoff)
            winner = listed[0][1]
            bot.notice([RaceWon(winner, 6, tuple((s, t) for t, s in listed))], {0})
            listed_mine += [t for t, s in listed if s == 0]
        errors.append(bot.estimate_ms / 500.0 - 1.0)
        naive.append(statistics.median(listed_mine) / 500.0 - 1.0 if listed_mine else -1.0)
    assert abs(statistics.median(errors)) < 0.05
    assert statistics.median(naive) < -0.12


@pytest.mark.parametrize("median", [350, 550])
def test_matched_bots_find_a_person_behind_the_fair_referees_early_close(median: int) -> None:
    """Three matched bots race a person; each race lists only the slaps within
    20 ms of its best reaction (as the fair referee closes it). The bots still
    end near the person's median, and the person wins a fair part of the races."""
    rng = random.Random(median)
    person = person_reaction(float(median)).sampler(rng)
    errors = []
    wins = races = 0
    for run in range(60):
        bots = [make_bot("matched", 10 * run + i) for i in range(3)]
        for race in range(30):
            times = {0: person(), **{i + 1: b._draw_reaction() for i, b in enumerate(bots)}}
            cutoff = min(times.values()) + 20.0
            listed = sorted((t, s) for s, t in times.items() if t <= cutoff)
            event = RaceWon(listed[0][1], 5, tuple((s, float(round(t))) for t, s in listed))
            for b in bots:
                b.notice([event], {0})
            if race >= 10:
                races += 1
                wins += listed[0][1] == 0
        errors.append(bots[0].estimate_ms / median - 1.0)
    assert abs(statistics.median(errors)) < 0.05
    assert 0.18 < wins / races < 0.32


# ------------------------------------------------------------ the fair aim


@pytest.mark.parametrize("bots", [1, 2, 3, 5, 9])
def test_equal_speed_is_an_equal_chance(bots: int) -> None:
    assert race_chance(bots, 1.0) == pytest.approx(1.0 / (bots + 1), abs=1e-4)
    assert race_chance(bots, 0.8) < race_chance(bots, 1.0) < race_chance(bots, 1.2)


def test_the_aim_correction_fades_as_reactions_come_in() -> None:
    assert fair_factor(0, 0) == 1.0
    early = [abs(1.0 - fair_factor(3, n)) for n in (0, 1, 3, 5)]
    late = [abs(1.0 - fair_factor(3, n)) for n in (20, 40, 400)]
    assert max(late) < 0.01 < min(early[:2])
    assert fair_factor(3, 0) < 1.0  # before anyone has reacted: a little faster


@pytest.mark.parametrize("n", [1, 2, 5])
def test_the_fair_aim_gives_a_person_a_fair_chance(n: int) -> None:
    """Monte Carlo: a person against three bots that estimated the person's median
    from n of the person's reactions and aim with fair_factor wins 1 race in 4."""
    rng = random.Random(100 + n)
    unit = person_reaction(400.0).sampler(rng)
    factor = fair_factor(3, n)
    wins = 0
    trials = 30_000
    for _ in range(trials):
        sample = sorted(unit() for _ in range(n))
        aim = sample[(n + 1) // 2 - 1] * factor
        me = unit()
        if all(me < unit() * aim / 400.0 for _ in range(3)):
            wins += 1
    assert wins / trials == pytest.approx(0.25, abs=0.012)
    # Without the correction the person would win clearly more often.
    if n == 1:
        assert fair_factor(3, 1) < 0.98


# ------------------------------------------------------------ learning in games


class _Probe(MatchedBot):
    """A matched bot that records its estimate after each race it learns from."""

    __slots__ = ("history",)

    def notice(self, events: Sequence[Event], people: Collection[int]) -> None:
        MatchedBot.notice(self, events, people)
        if people and any(isinstance(e, RaceWon) for e in events):
            self.history.append(self.estimate_ms)


def _probe(seed: int) -> _Probe:
    bot = _Probe(PROFILES["matched"], seed)
    bot.history = []
    return bot


@pytest.mark.parametrize("median", [300, 400, 500, 600])
def test_matched_converges_to_a_seats_median_within_15_percent_after_10_jacks(
    median: int,
) -> None:
    checked = 0
    for g in range(60):
        seed = game_seed(3, g)
        bots = [make_bot(f"human:{median}", game_seed(seed, 0))]
        bots += [_probe(game_seed(seed, s)) for s in (1, 2, 3)]
        play_game(CLASSIC, bots, shuffled_deck(seed))
        history = bots[1].history
        if len(history) < 10:
            continue  # the person was out before the 10th Jack
        checked += 1
        assert abs(history[9] / median - 1.0) <= 0.15, (g, history[:10])
        assert bots[2].history == history  # every matched bot learned the same
    assert checked >= 8


def test_learning_draws_nothing_from_the_bots_generator() -> None:
    view = view_after_flip("JS")
    a, b = make_bot("matched", 11), make_bot("matched", 11)
    assert isinstance(a, MatchedBot) and isinstance(b, MatchedBot)
    race = RaceWon(0, 5, ((0, 300.0), (1, 350.0)))
    a.notice([race], {0})
    a.rng.seed(99)
    b.rng.seed(99)
    before = b.rng.getstate()
    b.notice([race], {0})
    assert b.rng.getstate() == before
    assert [a.react(view) for _ in range(20)] == [b.react(view) for _ in range(20)]


def test_it_learns_only_from_people_still_in_the_game() -> None:
    bot = make_bot("matched", 2)
    assert isinstance(bot, MatchedBot)
    bot.notice([RaceWon(1, 4, ((1, 250.0), (0, 300.0), (2, 320.0)))], {0})
    assert bot.tracker.exact == 1 and bot.estimate_ms == 300.0
    assert bot.field_size == 3
    # Not a race result: nothing learned. An elimination: that seat is done.
    bot.notice([Flipped(0, 12), Eliminated(0, "lost_jack")], {0})
    bot.notice([RaceWon(1, 4, ((1, 250.0), (2, 320.0)))], {0})
    assert bot.tracker.seen == 1


def test_a_person_missing_from_a_race_is_censored_after_the_slowest_listed() -> None:
    bot = make_bot("matched", 2)
    assert isinstance(bot, MatchedBot)
    bot.notice([RaceWon(1, 4, ((1, 250.0), (2, 480.0)))], {0})
    assert bot.tracker.seen == 1 and bot.tracker.exact == 0
    assert bot.estimate_ms > 480.0  # all we know: slower than 480 ms
    # Races have stayed open 230 ms after their best slap: a person missing from
    # a race whose best slap came at 300 ms was slower than 530 ms.
    tracker = MedianTracker(425.0)
    tracker.censored(530.0)
    bot.notice([RaceWon(1, 4, ((1, 300.0), (2, 310.0)))], {0})
    assert bot.tracker.seen == 2
    assert bot.estimate_ms > tracker.median


def test_irish_snap_pickups_teach_it_too() -> None:
    bot = make_bot("matched", 2)
    assert isinstance(bot, MatchedBot)
    bot.notice([PickedUp(2, 9, "last", ((1, 310.0), (0, 350.0), (2, None)))], {0, 2})
    assert bot.tracker.exact == 1 and bot.tracker.seen == 2
    bot.notice([PickedUp(0, 3, "wrong", ((0, 200.0),))], {0})
    assert bot.tracker.seen == 2


def test_its_reactions_follow_what_it_learned() -> None:
    bot = make_bot("matched", 4)
    assert isinstance(bot, MatchedBot)
    for r in (300.0,) * 15:
        bot.notice([RaceWon(0, 3, ((0, r), (1, r + 50)))], {0})
    view = view_after_flip("JD")
    draws = [i.reaction_ms for i in (bot.react(view) for _ in range(3000)) if i is not None]
    assert statistics.median(draws) == pytest.approx(bot.aim_ms, rel=0.02)
    assert bot.aim_ms == pytest.approx(300.0, rel=0.02)


def test_notice_bots_calls_only_bots_with_the_hook() -> None:
    calls: list[tuple[int, frozenset[int]]] = []

    class Listener:
        def notice(self, events: Sequence[Event], people: Collection[int]) -> None:
            calls.append((len(events), frozenset(people)))

    plain = make_bot("casual", 1)
    notice_bots([plain, Listener(), Listener()], [RaceWon(0, 1, ((0, 300.0),))], [0, 2])
    assert calls == [(1, frozenset({0, 2}))] * 2
    notice_bots([Listener()], [], [0])
    assert len(calls) == 2
