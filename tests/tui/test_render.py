"""Drawing and texts: card faces, both languages complete, every event in words."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from slapjack.core import FULL_DECK, RANKS, Rules, Table, observe, parse_card
from slapjack.core.events import (
    Eliminated,
    Finished,
    Flipped,
    Forfeit,
    GameOver,
    NoSlap,
    PickedUp,
    PileReturned,
    PileSplit,
    RaceTied,
    RaceWon,
    Slapped,
    TimeIsUp,
    WrongSlap,
)
from slapjack.texts import words
from slapjack.tui import SeatSpec
from slapjack.tui.cards import RED, big_rank, card_art
from slapjack.tui.i18n import card_label, card_long_name, rank_label, tr
from slapjack.tui.render import (
    clock_text,
    game_title,
    item_text,
    reactions_text,
    status_text,
    wrap_text,
)
from slapjack.tui.state import Note, TableState


def plain(renderable: object, width: int = 60) -> str:
    console = Console(width=width, color_system=None, record=True)
    console.print(renderable)
    return console.export_text()


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_both_languages_have_every_text_with_the_same_placeholders() -> None:
    en, de = words("en"), words("de")
    assert set(en) == set(de)
    for key in en:
        assert en[key] and de[key], key
        assert fields(en[key]) == fields(de[key]), key


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_card_has_a_face_readable_without_colour(lang: str) -> None:
    faces = set()
    for card in FULL_DECK:
        for large in (False, True):
            art = card_art(card, lang, large=large)
            text = art.plain
            label = rank_label(card >> 2, lang)
            assert label in text and "♣♦♥♠"[card & 3] in text
            lines = text.splitlines()
            assert len({len(line) for line in lines}) == 1  # a clean box
            assert len(lines) == (11 if large else 7)
            assert (RED in {str(span.style) for span in art.spans}) == (card & 3 in (1, 2))
        faces.add(card_art(card, lang, large=True).plain)
    assert len(faces) == 52  # every card looks different, colour or not


def test_big_letters_for_every_rank() -> None:
    for lang in ("en", "de"):
        for rank in range(13):
            rows = big_rank(rank_label(rank, lang))
            assert len(rows) == 3 and len({len(r) for r in rows}) == 1
    assert len({big_rank(r) for r in RANKS}) == 13


def test_card_words() -> None:
    jack = parse_card("JD")
    assert card_label(jack, "en") == "J♦" and card_label(jack, "de") == "B♦"
    assert card_long_name(jack, "en") == "Jack of diamonds"
    assert card_long_name(jack, "de") == "Karo-Bube"
    assert card_label(parse_card("QS"), "de") == "D♠"


def test_clock_and_reactions() -> None:
    assert clock_text(125_000) == "2:05"
    assert clock_text(100) == "0:01"  # never shows 0:00 before time is up
    assert clock_text(-5) == "0:00"
    text = reactions_text(((1, 212.0), (0, 263.4), (2, None)), ("Anna", "Ben", "Carla"), "en")
    assert text.plain.replace("\xa0", " ") == "Ben 212 ms · Anna 263 ms · Carla —"


def test_a_preset_with_changed_rules_says_so_in_words() -> None:
    """A changed preset read "Classic *", and nothing on screen said what the
    star meant."""
    classic = Rules.from_options({"preset": "classic"})
    changed = Rules.from_options({"preset": "classic", "time_limit": 60})
    assert game_title(classic, "en") == "Slapjack · Classic"
    assert game_title(changed, "en") == "Slapjack · Classic (changed)"
    assert game_title(changed, "de") == "Slapjack · Klassisch (geändert)"
    winner = Rules.from_options({"preset": "irish-snap-winner", "irish_goal": "avoid_last"})
    assert game_title(winner, "de") == "Irish Snap: Wer zuerst fertig ist, gewinnt (geändert)"
    # the log's first line breaks before the mark rather than cut it off (80×24: 35 wide)
    start = item_text(
        Note("game_start"), state_for("irish-snap-winner", irish_goal="avoid_last"), "en"
    )
    lines = [line.plain.replace("\xa0", " ") for line in wrap_text(start, 35)]
    assert lines == ["Irish Snap: first out wins", "  (changed), 3 players"]


def test_the_logs_first_line_breaks_inside_a_long_preset_name() -> None:
    """The German "Irish Snap: Wer zuerst fertig ist, gewinnt" was one
    unbreakable value, wider than the log at 80×24 (35 cells), and came out
    as "Irish Snap: Wer zuerst fertig ist,…". Its words after the game's
    name break like any others now; the game's name stays whole, a short
    title ("Slapjack · Classic") stays one value as before, and the count
    stays with its noun ("4 players", never "4" at a line's end)."""

    def lines(lang: str, preset: str, width: int, **options: object) -> list[str]:
        start = item_text(Note("game_start"), state_for(preset, **options), lang)
        return [line.plain for line in wrap_text(start, width)]

    assert lines("de", "irish-snap-winner", 35) == [
        "Irish Snap: Wer zuerst fertig ist,",
        "  gewinnt, 3 Spieler",
    ]
    assert lines("de", "irish-snap-winner", 35, irish_goal="avoid_last") == [
        "Irish Snap: Wer zuerst fertig ist,",
        "  gewinnt (geändert), 3 Spieler",
    ]
    assert lines("en", "irish-snap-winner", 12) == [
        "Irish Snap:",
        "  first out",
        "  wins,",
        "  3 players",
    ]
    # The English log at 80×24 (35 cells) ended its first line with "wins, 3".
    assert lines("en", "irish-snap-winner", 35) == [
        "Irish Snap: first out wins,",
        "  3 players",
    ]
    assert lines("en", "classic", 35) == ["Slapjack · Classic, 3 players"]
    assert lines("en", "classic", 20) == ["Slapjack · Classic,", "  3 players"]
    assert lines("de", "klatsch-bube", 25, time_limit=60) == [
        "Slapjack · Klatsch-Bube",
        "  (geändert), 3 Spieler",
    ]


def state_for(preset: str, **options: object) -> TableState:
    rules = Rules.from_options({"preset": preset, **options})
    table = Table.new(rules, ["Anna", "Ben", "Carla"], seed=3)
    view = observe(table.game, 0)
    seats = (
        SeatSpec("Anna", None, "a", "z", "q"),
        SeatSpec("Ben", "pro"),
        SeatSpec("Carla", "casual"),
    )
    return TableState(view, seats, (), (), (), None, None, 0, False, (), 3, None)


EVENTS = [
    Flipped(0, 40),
    Flipped(1, 8, 2, True),
    Slapped(1, 212.0),
    Slapped(1, 212.0, True),
    WrongSlap(0, "pay_player", 1),
    WrongSlap(0, "pay_player", 0),
    WrongSlap(0, "pay_pile"),
    WrongSlap(0, "pickup"),
    WrongSlap(0, "forfeit"),
    WrongSlap(0, "none"),
    RaceWon(1, 3, ((1, 212.0),)),
    RaceTied((0, 1), 212.0),
    PileSplit(((0, 2), (1, 1))),
    Forfeit(2, ((0, 2), (1, 2))),
    NoSlap(41),
    PickedUp(0, 5, "last"),
    PickedUp(0, 1, "wrong"),
    PileReturned(2, 52),
    Eliminated(0, "no_cards"),
    Eliminated(0, "lost_jack"),
    Eliminated(0, "turn"),
    Eliminated(0, "wrong_slap"),
    Finished(1),
    TimeIsUp(),
    GameOver((0, 1)),
    GameOver((0, 1), 2),
    Note("game_start"),
    Note("idle_flip", (("seat", 1),)),
    Note("saved", (("path", "x.json"),)),
]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("preset", ["classic", "irish-snap-winner"])
def test_every_event_reads_as_words(lang: str, preset: str) -> None:
    state = state_for(preset)
    seen = set()
    for event in EVENTS:
        text = item_text(event, state, lang).plain
        assert text and "{" not in text and "None" not in text, (event, text)
        seen.add(text)
    assert len(seen) >= len(EVENTS) - 3  # distinct messages, not one catch-all
    assert "Anna" in item_text(RaceWon(0, 3, ()), state, lang).plain


def test_status_line_names_the_keys() -> None:
    state = state_for("classic")
    assert status_text(state, "en").plain == "Anna: Z or Space to flip"
    assert status_text(state, "de").plain == "Anna: Z oder Leertaste zum Aufdecken"
    assert (
        tr("de", "ev.race_won", name="Ben", cards="3 Karten")
        == "Ben gewinnt den Buben und nimmt 3 Karten"
    )


def test_no_color_keeps_every_fact_on_screen() -> None:
    # without colour the suits still differ by symbol and the out/turn marks are text
    red = plain(card_art(parse_card("JH"), "en", large=True))
    black = plain(card_art(parse_card("JS"), "en", large=True))
    assert red != black and "♥" in red and "♠" in black


# ------------------------------------------------------------- layout helpers


@given(
    names=st.lists(
        st.text(alphabet="AaBbé 2", min_size=1, max_size=12).map(str.strip).filter(bool),
        min_size=1,
        max_size=5,
    ),
    width=st.integers(min_value=24, max_value=60),
)
def test_lines_break_between_values_never_inside_one(names: list[str], width: int) -> None:
    from slapjack.tui.render import value, wrap_text

    text = Text(" and ".join(value(f"{n} 212 ms") for n in names) + " slap")
    lines = [line.plain for line in wrap_text(text, width)]
    assert all(len(line) <= width for line in lines)
    joined = "\n".join(lines)
    for name in names:
        assert any(f"{name} 212 ms" in line for line in lines), lines  # each value whole
    assert "\xa0" not in joined  # what reaches the screen has plain spaces
    assert " ".join(w for line in lines for w in line.split()) == " ".join(
        text.plain.replace("\xa0", " ").split()
    )


def test_a_word_longer_than_the_line_is_cut_not_split() -> None:
    from slapjack.tui.render import wrap_text

    lines = wrap_text(Text("saved to slapjack-20250101-120000.json now"), 20)
    assert [line.plain for line in lines] == ["saved to", "  slapjack-20250101…", "  now"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_card_grows_with_the_room_and_every_size_is_a_clean_box(lang: str) -> None:
    from slapjack.tui.cards import CARD_SIZES, card_size

    assert card_size(10, 5) == CARD_SIZES[0]  # the smallest when nothing fits
    assert card_size(200, 60) == CARD_SIZES[-1]
    for k, (width, height) in enumerate(CARD_SIZES):
        assert card_size(width, height) == (width, height)
        if k:
            assert card_size(width + 3, height - 1) == CARD_SIZES[k - 1]
        for card in (parse_card("10H"), parse_card("JS"), parse_card("QC")):
            lines = card_art(card, lang, size=(width, height)).plain.splitlines()
            assert len(lines) == height and {len(line) for line in lines} == {width}
            assert rank_label(card >> 2, lang) in lines[1]


def test_big_letters_scale_pixel_for_pixel() -> None:
    half = {" ": (0, 0), "▀": (1, 0), "▄": (0, 1), "█": (1, 1)}

    def pixels(rows: tuple[str, ...]) -> list[list[int]]:
        return [[half[ch][k] for ch in row] for row in rows for k in (0, 1)]

    for rank in ("10", "J", "A", "D"):
        small = pixels(big_rank(rank))
        for scale in (2, 3, 4):
            big = pixels(big_rank(rank, scale))
            assert len(big) == len(small) * scale and len(big[0]) == len(small[0]) * scale
            assert all(
                big[y][x] == small[y // scale][x // scale]
                for y in range(len(big))
                for x in range(len(big[0]))
            )


def test_the_pile_fans_out_the_cards_under_the_top_one() -> None:
    from slapjack.tui.cards import PEEK, pile_art

    rules = Rules.from_options({"preset": "classic"})
    cards = tuple(parse_card(n) for n in ("5C", "KD", "JS")) + tuple(
        c for c in FULL_DECK if c not in {parse_card(n) for n in ("5C", "KD", "JS")}
    )
    table = Table.new(rules, ["Anna", "Ben", "Carla"], deck=cards)
    for seat in range(3):
        table.flip(seat, seat + 1)
    view = observe(table.game, 0)
    art = pile_art(view, "en", (15, 11)).plain.splitlines()
    assert len(art[0]) == 15 + 2 * PEEK
    assert art[1].startswith("│ 5 │ K │ J")
    assert len(pile_art(view, "en", (15, 11), under=0).plain.splitlines()[0]) == 15


def test_the_log_ranks_a_races_slaps_and_drops_the_false_start_note() -> None:
    from slapjack.tui.render import display_log

    carla, ben, anna = Slapped(2, 240.0), Slapped(1, 212.0), Slapped(0, 5033.0)
    note = Note("false_start", (("seat", 0), ("ms", 33.0)))
    won = RaceWon(1, 3, ((1, 212.0), (2, 240.0), (0, 5033.0)))
    items = [Flipped(2, 40), carla, anna, note, ben, won]
    assert display_log(items) == [Flipped(2, 40), ben, carla, anna, won]
    assert display_log([Flipped(2, 40), carla, ben]) == [Flipped(2, 40), ben, carla]  # still open
    state = state_for("classic")
    assert item_text(anna, state, "en").plain.replace("\xa0", " ") == (
        "Anna slaps after only 33 ms: too soon, a guess"
    )
    assert item_text(ben, state, "de").plain.replace("\xa0", " ") == "Ben schlägt nach 212 ms"
