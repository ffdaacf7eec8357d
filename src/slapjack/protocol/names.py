"""Player and room names: Unicode NFKC, single spaces, no invisible or
direction-changing characters (docs/protocol.md, "Names")."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Final

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

MAX_PLAYER_NAME: Final = 24
MAX_ROOM_NAME: Final = 40

NAME_FORM: Final = "NFKC"
"""Names are stored and compared in Unicode NFKC: compatibility forms that look
alike fold into one (fullwidth ``Ａｎｎａ`` is ``Anna``, the ligature ``ﬁ`` is
``fi``, a no-break space is a space), so two players cannot hold names that
look the same and ``/api/stats/{name}`` finds a player however the name was typed."""

REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories never allowed in a name: controls (NUL, tab, newline…),
format characters (zero-width space and joiner, bidi overrides such as U+202E,
soft hyphen, BOM), surrogates, private use, unassigned, line/paragraph separators."""

INVISIBLE: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
"""Characters that are letters, marks or symbols by category but show nothing
(Hangul fillers, the blank Braille pattern, the combining grapheme joiner,
the Khmer inherent vowels): refused anywhere in a name."""

MAX_MARKS: Final = 4
"""At most this many combining marks on one character, counted in the
decomposed form (NFKD: ``ệ`` is ``e`` and two marks): no "Zalgo" names."""


_KINDS: Final = {
    "Cc": "a control character",
    "Cf": "a format character: invisible, or it turns the text direction",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


def _refuse_characters(text: str, what: str) -> None:
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category in REFUSED_CATEGORIES or ch in INVISIBLE:
            kind = "an invisible character" if ch in INVISIBLE else _KINDS[category]
            label = unicodedata.name(ch, "")
            raise PydanticCustomError(
                "bad_name",
                "{what} may not contain U+{code}{label} ({kind}, at position {index})",
                {
                    "what": what,
                    "code": f"{ord(ch):04X}",
                    "label": f" {label}" if label else "",
                    "kind": kind,
                    "index": i,
                },
            )


def clean_name(value: str, *, what: str = "name", max_length: int = MAX_PLAYER_NAME) -> str:
    """``value`` in NFKC with runs of spaces made one and the ends stripped;
    raises ``PydanticCustomError`` (type ``bad_name``) for a control, format or
    invisible character, a run of more than :data:`MAX_MARKS` combining marks,
    a name that shows nothing (only spaces, fillers or marks), a leading
    combining mark, or one longer than ``max_length`` characters. An empty
    string stays empty (the caller decides whether that is allowed)."""
    _refuse_characters(value, what)
    name = unicodedata.normalize(NAME_FORM, value)
    _refuse_characters(name, what)
    name = " ".join(name.split())
    marks = 0
    visible = False
    for ch in unicodedata.normalize("NFKD", name):  # marks counted decomposed
        category = unicodedata.category(ch)
        if category[0] == "M":
            marks += 1
            if marks > MAX_MARKS:
                raise PydanticCustomError(
                    "bad_name",
                    "{what} has more than {most} combining marks on one character",
                    {"what": what, "most": MAX_MARKS},
                )
        else:
            marks = 0
            visible = visible or category[0] in "LNPS"
    if name and not visible:
        raise PydanticCustomError(
            "bad_name", "{what} shows nothing: it needs a letter, digit or symbol", {"what": what}
        )
    if name and unicodedata.category(name[0])[0] == "M":
        raise PydanticCustomError(
            "bad_name", "{what} may not start with a combining mark", {"what": what}
        )
    if len(name) > max_length:
        raise PydanticCustomError(
            "bad_name",
            "{what} is longer than {most} characters",
            {"what": what, "most": max_length},
        )
    return name


def _player_name(value: str) -> str:
    name = clean_name(value)
    if not name:
        raise PydanticCustomError("bad_name", "name is empty", {})
    return name


def _room_name(value: str) -> str:
    return clean_name(value, what="room name", max_length=MAX_ROOM_NAME)


Name = Annotated[str, Field(max_length=4 * MAX_PLAYER_NAME), AfterValidator(_player_name)]
"""A player name: 1–24 characters after :func:`clean_name` (the raw text may be
longer, e.g. NFKC folds or spaces to collapse, up to 96 characters)."""
RoomName = Annotated[str, Field(max_length=4 * MAX_ROOM_NAME), AfterValidator(_room_name)]
"""A room name: 0–40 characters after :func:`clean_name` (empty: ``Room CODE``)."""
