"""A finished game as the replay viewer steps through it: one step per record
action (and one per slap window the record settles implicitly), each with its
events and the spectator view after it.

The browser does not re-implement the rules: the server replays the record
with the engine and the viewer only shows the steps. A spectator view never
holds a face-down card, so the steps are safe to send as they are.
"""

from __future__ import annotations

from typing import Any, Final

from slapjack.core import Record, RecordError, SlapjackError, event_to_dict, spectate
from slapjack.core.actions import Flip, Slap
from slapjack.core.record import action_to_dict

MAX_STEPS: Final = 20_000
"""A record with more actions than this is cut short (the viewer says so)."""


def _view(game: Any) -> dict[str, Any]:
    view = spectate(game).to_dict()
    view["flip_id"] = game.flips
    return view


def replay_steps(record: Record) -> dict[str, Any]:
    """``{"steps": [{"action", "events", "view"}], "truncated": bool}`` for ``record``.

    ``action`` is the record's action (``{"t", "flip": name}`` …) or
    ``{"settle": true}`` for a slap window closed between actions; step 0 is the
    deal (``action`` null). Raises :class:`RecordError` on a bad record.
    """
    game = record.new_game()
    players = record.players
    steps: list[dict[str, Any]] = [{"action": None, "events": [], "view": _view(game)}]

    def settle(final: bool = True) -> None:
        events = game.settle(final=final)
        steps.append(
            {
                "action": {"settle": True, "t": game.t},
                "events": [event_to_dict(e) for e in events],
                "view": _view(game),
            }
        )

    truncated = False
    for i, action in enumerate(record.actions):
        if len(steps) >= MAX_STEPS:
            truncated = True
            break
        try:
            if game.over:
                raise RecordError("the game is already over", index=i, code="game_over")
            # Settle exactly where core.replay() does (tests compare the two).
            if isinstance(action, Slap):
                if game.opens_reslap(action.seat):
                    settle(final=False)
            elif isinstance(action, Flip) and game.needs_settle:
                settle()
            events = game.apply(action)
        except RecordError:
            raise
        except SlapjackError as exc:
            raise RecordError(exc.message, index=i, code=exc.code) from None
        steps.append(
            {
                "action": action_to_dict(action, players),
                "events": [event_to_dict(e) for e in events],
                "view": _view(game),
            }
        )
    if not truncated and game.needs_settle:
        settle()
    return {"steps": steps, "truncated": truncated}
