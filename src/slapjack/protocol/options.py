"""``GET /api/options``: the games, presets and house-rule options a client's
forms offer, derived from the engine's option table (``core.rules.OPTIONS``)
and the server's limits, so no client keeps a copy of its own."""

from __future__ import annotations

from typing import Any

from slapjack.core.game import MIN_PLAYERS
from slapjack.core.rules import OPTIONS, PRESETS, GameKind, OptionKind

from .base import BOT_LEVELS, MAX_SEATS


def options_body() -> dict[str, Any]:
    """``{"games", "presets", "options", "bot_levels", "min_seats", "max_seats"}``.

    ``presets[name]`` is ``{"game", "options"}`` with every option of its game;
    each entry of ``options`` is ``{"name", "game", "type"}`` plus ``choices``
    (``type: "choice"``) or ``max`` (``type: "seconds"``, from 0).
    """
    options: list[dict[str, Any]] = []
    for option in OPTIONS:
        entry: dict[str, Any] = {
            "name": option.name,
            "game": option.game.value,
            "type": option.kind.value,
        }
        if option.kind is OptionKind.CHOICE:
            entry["choices"] = list(option.values)
        elif option.kind is OptionKind.SECONDS:
            entry["max"] = option.maximum
        options.append(entry)
    return {
        "games": [g.value for g in GameKind],
        "presets": {
            name: {"game": rules.game.value, "options": rules.option_values()}
            for name, rules in PRESETS.items()
        },
        "options": options,
        "bot_levels": list(BOT_LEVELS),
        "min_seats": MIN_PLAYERS,
        "max_seats": MAX_SEATS,
    }
