"""A finished game as the replay viewer steps through it: one step per record
action (and one per slap window an old record settles implicitly), each with
its events and the spectator view after it.

The browser does not re-implement the rules: the server replays the record
with the engine and the viewer only shows the steps. A spectator view never
holds a face-down card, so the steps are safe to send as they are.
"""

from __future__ import annotations

from typing import Any, Final

from slapjack.core import Record, event_to_dict, spectate
from slapjack.core.record import action_to_dict
from slapjack.core.record import replay_steps as core_replay_steps

MAX_STEPS: Final = 20_000
"""A record with more actions than this is cut short (the viewer says so)."""


def _view(game: Any) -> dict[str, Any]:
    view = spectate(game).to_dict()
    view["flip_id"] = game.flips
    return view


def replay_steps(record: Record) -> dict[str, Any]:
    """``{"steps": [{"action", "events", "view"}], "truncated": bool}`` for ``record``.

    ``action`` is the record's action (``{"t", "flip": name}`` …), also a
    recorded ``{"t", "settle": true}``; a slap window an old record settles
    implicitly between actions is a step ``{"t", "settle": true, "implicit":
    true}``. Step 0 is the deal (``action`` null). Raises :class:`RecordError`
    on a bad record.
    """
    game = record.new_game()
    players = record.players
    steps: list[dict[str, Any]] = [{"action": None, "events": [], "view": _view(game)}]
    truncated = False
    for step in core_replay_steps(record, game):
        if len(steps) >= MAX_STEPS:
            truncated = True
            break
        action = action_to_dict(step.action, players)
        if step.index is None:
            action["implicit"] = True
        steps.append(
            {
                "action": action,
                "events": [event_to_dict(e) for e in step.events],
                "view": _view(game),
            }
        )
    return {"steps": steps, "truncated": truncated}
