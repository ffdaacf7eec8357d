"""Human-like bots: reaction-time statistics, mistake rates, Irish Snap, reslap, determinism."""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import replace

import pytest

from slapjack.bots import (
    LEVELS,
    PROFILES,
    BotError,
    ExGaussian,
    FastBot,
    HumanBot,
    Profile,
    SlapIntent,
    UnknownBotLevel,
    make_bot,
)
from slapjack.core import FULL_DECK, JACK, KING, QUEEN, Game, Rules, observe, parse_card

from .util import deck_with_top, view_after_flip, with_top

HUMAN = ("beginner", "casual", "pro")
N = 4000


def within(observed: float, expected: float, sd: float, n: int, k: float = 4.5) -> bool:
    """``observed`` is a mean of ``n`` draws within ``k`` standard errors of ``expected``."""
    return abs(observed - expected) <= k * sd / math.sqrt(n)


def rate(hits: int, n: int, p: float) -> bool:
    """A binomial count within 4.5 standard errors (plus a little) of ``n * p``."""
    return abs(hits / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9


# ------------------------------------------------------------ the RT model


@pytest.mark.parametrize("level", HUMAN)
def test_reaction_times_follow_the_ex_gaussian_of_the_level(level: str) -> None:
    model = PROFILES[level].reaction
    rng = random.Random(11)
    draws = [model.draw(rng) for _ in range(N)]
    assert within(statistics.fmean(draws), model.mean, model.sd, N)
    assert abs(statistics.stdev(draws) - model.sd) <= 0.12 * model.sd
    assert min(draws) >= model.floor >= 100.0
    # Right-skewed, as human RTs are: the mean lies above the median.
    assert statistics.fmean(draws) > statistics.median(draws)
    # Browser go/no-go medians of people run from about 320 to 600 ms (docs/bots.md).
    assert 320.0 <= model.median <= 600.0
    assert abs(statistics.median(draws) - model.median) <= 0.02 * model.median


def test_reaction_levels_are_ordered_pro_casual_beginner() -> None:
    means = {}
    for level in HUMAN:
        bot = make_bot(level, 3)
        view = view_after_flip("JS")
        rts = [i.reaction_ms for _ in range(N) if (i := bot.react(view)) is not None]
        means[level] = statistics.fmean(rts)
    assert means["pro"] < means["casual"] < means["beginner"]
    assert PROFILES["pro"].lapse < PROFILES["casual"].lapse < PROFILES["beginner"].lapse
    assert PROFILES["pro"].flinch < PROFILES["casual"].flinch < PROFILES["beginner"].flinch


def test_reactions_are_whole_milliseconds() -> None:
    bot = make_bot("casual", 1)
    view = view_after_flip("JH")
    for _ in range(200):
        intent = bot.react(view)
        if intent is not None:
            assert intent.reaction_ms == int(intent.reaction_ms)


def test_samplers_are_reproducible_and_truncated() -> None:
    model = ExGaussian(250.0, 30.0, 80.0, floor=200.0, ceiling=400.0)
    a, b = model.sampler(random.Random(5)), model.sampler(random.Random(5))
    first = [a() for _ in range(2000)]
    assert first == [b() for _ in range(2000)]
    assert min(first) >= 200.0 and max(first) <= 400.0
    assert model.draw(random.Random(5)) == first[0]
    assert ExGaussian(180.0).draw(random.Random(1)) == 180.0
    only_normal = ExGaussian(300.0, 20.0, 0.0)
    only_exp = ExGaussian(300.0, 0.0, 50.0)
    assert statistics.fmean(only_exp.draw(random.Random(i)) for i in range(500)) > 300.0
    assert only_normal.sd == 20.0 and only_exp.mean == 350.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mu": math.nan},
        {"mu": 200.0, "sigma": -1.0},
        {"mu": 200.0, "tau": -5.0},
        {"mu": 50.0, "floor": 100.0},
    ],
)
def test_bad_ex_gaussian_parameters_are_rejected(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        ExGaussian(**kwargs)


def test_bad_probabilities_are_rejected() -> None:
    with pytest.raises(ValueError, match="lapse"):
        replace(PROFILES["casual"], lapse=1.5)


@pytest.mark.parametrize("level", LEVELS)
def test_flip_delays_are_human_like(level: str) -> None:
    bot = make_bot(level, 2)
    view = view_after_flip("5C")
    delays = [bot.flip_delay_ms(view) for _ in range(2000)]
    assert 300.0 <= statistics.fmean(delays) <= 900.0
    assert min(delays) >= 200.0
    assert max(delays) <= 5000.0


# ------------------------------------------------------------- mistakes


@pytest.mark.parametrize("level", HUMAN)
def test_lapse_rate_on_jacks(level: str) -> None:
    bot = make_bot(level, 21)
    view = view_after_flip("JD")
    misses = sum(bot.react(view) is None for _ in range(N))
    assert rate(misses, N, PROFILES[level].lapse)


@pytest.mark.parametrize("level", HUMAN)
@pytest.mark.parametrize("card", ["QH", "KS"])
def test_flinch_rate_on_queens_and_kings(level: str, card: str) -> None:
    bot = make_bot(level, 22)
    view = view_after_flip(card)
    hits = sum(bot.react(view) is not None for _ in range(N))
    assert rate(hits, N, PROFILES[level].flinch)


@pytest.mark.parametrize("level", LEVELS)
def test_never_slaps_other_cards(level: str) -> None:
    bot = make_bot(level, 23)
    for rank in ("A", "2", "5", "9", "10"):
        view = view_after_flip(rank + "C")
        assert all(bot.react(view) is None for _ in range(300))


@pytest.mark.parametrize("level", HUMAN)
def test_forgotten_call_rate_in_say_it(level: str) -> None:
    bot = make_bot(level, 24)
    view = view_after_flip("JC", preset="say-it")
    intents = [i for _ in range(N) if (i := bot.react(view)) is not None]
    forgot = sum(not i.call for i in intents)
    assert rate(forgot, len(intents), PROFILES[level].forget_call)


def test_no_call_without_say_it() -> None:
    bot = make_bot("pro", 25)
    view = view_after_flip("JC")
    assert all(not i.call for _ in range(500) if (i := bot.react(view)) is not None)


# ------------------------------------------------------------ perfect


def test_perfect_is_deterministic_and_never_wrong() -> None:
    a, b = make_bot("perfect", 1), make_bot("perfect", 999)
    jack = view_after_flip("JS", preset="say-it")
    for bot in (a, b):
        assert bot.react(jack) == SlapIntent(180.0, True)
        assert bot.flip_delay_ms(jack) == 500.0
        for card in ("QS", "KD", "5H"):
            assert bot.react(with_top(jack, card)) is None
    assert all(make_bot("perfect", s).react(jack) == SlapIntent(180.0, True) for s in range(20))


# ---------------------------------------------------------- Irish Snap


def test_irish_snap_slaps_matches_and_rarely_neighbours() -> None:
    base = view_after_flip("AS", preset="irish-snap")
    assert base.is_match  # the first call is Ace
    bot = make_bot("beginner", 31)
    p = PROFILES["beginner"]
    hits = sum(bot.react(base) is not None for _ in range(N))
    assert rate(N - hits, N, p.lapse)
    call = 5  # "6"
    for card, expected in (("5H", p.flinch), ("7H", p.flinch), ("6H", 1 - p.lapse)):
        view = with_top(base, card, call)
        hits = sum(bot.react(view) is not None for _ in range(N))
        assert rate(hits, N, expected), card
    for card in ("3H", "9H", "JH", "KH"):
        assert all(bot.react(with_top(base, card, call)) is None for _ in range(300))
    # Ace and King are neighbours too: the calls go round.
    assert bot.might_slap(12, 0, base.rules) and bot.might_slap(1, 0, base.rules)
    # No call shown: nothing to match.
    assert bot.react(with_top(base, "6H", None)) is None


# ----------------------------------------------------- the view and only it


def test_no_slap_for_spectators_players_out_or_an_empty_centre() -> None:
    bot = make_bot("perfect", 0)
    view = view_after_flip("JS")
    assert bot.react(replace(view, seat=None)) is None
    assert bot.react(replace(view, out=(False, True, False, False))) is None
    assert bot.react(replace(view, over=True)) is None
    assert bot.react(replace(view, centre_top=())) is None
    assert bot.react(view) is not None


def test_reslap_round_only_for_the_tied_seats() -> None:
    view = view_after_flip("JS")
    tied = replace(view, reslap_among=(1, 3))
    assert make_bot("perfect", 0).react(tied) == SlapIntent(180.0, False)
    assert make_bot("perfect", 0).react(replace(tied, seat=2)) is None
    # A reslap is a fresh go cue: no flinch logic, and it applies whatever the card.
    assert make_bot("perfect", 0).react(replace(tied, centre_top=(parse_card("JH"),))) is not None


def test_equal_views_give_equal_decisions() -> None:
    """Two games that differ only in face-down cards look the same from a seat, and
    a bot (same level, same seed) decides the same in both."""
    rules = Rules.from_options({"preset": "classic"})
    names = ["A", "B", "C"]
    rest = [c for c in FULL_DECK if c != parse_card("JS")]
    deck1 = [parse_card("JS"), *rest]
    deck2 = [parse_card("JS"), *reversed(rest)]
    g1, g2 = Game(rules, names, deck1), Game(rules, names, deck2)
    g1.flip(0, 0)
    g2.flip(0, 0)
    v1, v2 = observe(g1, 1), observe(g2, 1)
    assert g1.stacks != g2.stacks
    assert v1 == v2
    b1, b2 = make_bot("casual", 77), make_bot("casual", 77)
    assert [b1.react(v1) for _ in range(200)] == [b2.react(v2) for _ in range(200)]
    assert [b1.flip_delay_ms(v1) for _ in range(50)] == [b2.flip_delay_ms(v2) for _ in range(50)]


def test_the_fast_path_decides_as_react_does() -> None:
    """``react_card`` (top card, call, rules) makes the decisions ``react(view)`` makes."""
    for preset in ("classic", "say-it", "irish-snap"):
        view = view_after_flip("2C", preset=preset)
        rng = random.Random(preset)
        slow, fast = make_bot("beginner", 5), make_bot("beginner", 5)
        assert isinstance(fast, FastBot)
        for _ in range(3000):
            card = rng.randrange(52)
            call = rng.randrange(13) if view.rules.is_irish else None
            v = replace(view, centre_top=(card,), top_call=call)
            assert slow.react(v) == fast.react_card(card, call, view.rules)
        assert slow.rng.getstate() == fast.rng.getstate()


@pytest.mark.parametrize("preset", ["classic", "say-it", "irish-snap"])
def test_might_slap_false_means_no_draw(preset: str) -> None:
    rules = Rules.from_options({"preset": preset})
    bot = make_bot("beginner", 8)
    calls: list[int | None] = list(range(13)) if rules.is_irish else [None]
    for card in range(52):
        for call in calls:
            if not bot.might_slap(card >> 2, call, rules):
                state = bot.rng.getstate()
                assert bot.react_card(card, call, rules) is None
                assert bot.rng.getstate() == state
    assert bot.might_slap(JACK, None, Rules()) and bot.might_slap(QUEEN, None, Rules())
    assert bot.might_slap(KING, None, Rules())
    assert not make_bot("perfect", 0).might_slap(QUEEN, None, Rules())


def test_bots_leave_the_global_random_alone() -> None:
    state = random.getstate()
    bot = make_bot("beginner", 4)
    view = view_after_flip("JS", preset="say-it")
    for _ in range(500):
        bot.react(view)
        bot.flip_delay_ms(view)
    assert random.getstate() == state
    random.seed(1)
    first = [make_bot("casual", 9).react(view) for _ in range(5)]
    random.seed(2)
    assert [make_bot("casual", 9).react(view) for _ in range(5)] == first


def test_bots_with_the_same_seed_agree_and_different_seeds_differ() -> None:
    view = view_after_flip("JS")
    a, b, c = make_bot("casual", 1), make_bot("casual", 1), make_bot("casual", 2)
    seq_a = [a.react(view) for _ in range(100)]
    assert seq_a == [b.react(view) for _ in range(100)]
    assert seq_a != [c.react(view) for _ in range(100)]


# ------------------------------------------------------------- make_bot


def test_make_bot_levels() -> None:
    assert LEVELS == ("beginner", "casual", "pro", "matched", "perfect")
    assert tuple(PROFILES) == LEVELS
    for level in LEVELS:
        bot = make_bot(level, 0)
        assert isinstance(bot, HumanBot) and bot.level == level


@pytest.mark.parametrize("level", ["expert", "", "PRO", None, 3])
def test_unknown_level_is_a_typed_error(level: object) -> None:
    with pytest.raises(UnknownBotLevel) as info:
        make_bot(level, 0)  # type: ignore[arg-type]
    assert info.value.code == "unknown_bot_level"
    assert isinstance(info.value, ValueError)
    assert "beginner" in str(info.value)


@pytest.mark.parametrize("seed", ["7", 1.5, True, None])
def test_bad_seed_is_a_typed_error(seed: object) -> None:
    with pytest.raises(BotError):
        make_bot("casual", seed)  # type: ignore[arg-type]


def test_custom_profile() -> None:
    fast_hand = Profile("custom", ExGaussian(150.0), ExGaussian(400.0), whole_ms=False)
    bot = HumanBot(fast_hand, 0)
    assert bot.level == "custom"
    game = Game(Rules(), ["A", "B"], deck_with_top(parse_card("JC")))
    game.flip(0, 0)
    assert bot.react(observe(game, 0)) == SlapIntent(150.0, False)


def test_flip_delays_are_ordered_pro_casual_beginner() -> None:
    view = view_after_flip("5C")
    bots = {level: make_bot(level, 6) for level in HUMAN}
    means = {
        level: statistics.fmean(bot.flip_delay_ms(view) for _ in range(N))
        for level, bot in bots.items()
    }
    assert means["pro"] < means["casual"] < means["beginner"]
    for level in HUMAN:
        model = PROFILES[level].flip_delay
        assert within(means[level], model.mean, model.sd, N, k=6.0)
