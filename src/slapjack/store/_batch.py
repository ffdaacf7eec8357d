"""The group commit's plan: what one batch of queued appends does, given each
room's next index and fencing epoch (:class:`BatchPlan`), and the queued
append itself (``_Pending``). Pure logic, no SQL; shared by both adapters
through :mod:`slapjack.store._sql` (which imports it from here)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .base import load_json
from .errors import ActionConflict, ActionGap, CorruptRow, StaleOwner, StoreError, UnknownRoom

Row = Sequence[Any]


@dataclass(slots=True)
class _Pending:
    code: str
    index: int
    text: str
    future: asyncio.Future[None]
    epoch: int | None = None  #: the writer's fencing epoch; None: not fenced


class BatchPlan:
    """What a group commit does with its batch, given each room's next index
    (one more than its last stored action's) and fencing epoch (read in code order, so two writers lock rooms in the
    same order, and locked: no claim can move an epoch until the commit).

    ``outcomes[i]`` is ``None`` (stored, or already stored with the same text)
    or the error for ``batch[i]``; ``to_check`` lists the appends whose index
    is already taken: the caller reads that stored action and passes it to
    :meth:`check_stored`. A fenced append whose epoch is not the room's is
    :class:`StaleOwner` before anything else is looked at (it takes no index).
    Pure logic, shared by the adapters (the SQLite one runs a whole batch in
    its database thread)."""

    __slots__ = ("_batch", "accepted", "nxt", "outcomes", "to_check")

    def __init__(
        self,
        batch: Sequence[_Pending],
        start: dict[str, int],
        epochs: Mapping[str, tuple[int, str | None]] | None = None,
    ) -> None:
        self.nxt = dict(start)
        self.accepted: dict[tuple[str, int], str] = {}
        self.outcomes: list[StoreError | None] = []
        self.to_check: list[int] = []
        nxt, accepted, outcomes = self.nxt, self.accepted, self.outcomes
        for i, p in enumerate(batch):
            n = nxt.get(p.code)
            if n is None:
                outcomes.append(UnknownRoom(f"no live room {p.code}"))
            elif p.epoch is not None and (held := _held(epochs, p.code))[0] != p.epoch:
                outcomes.append(StaleOwner(p.code, p.epoch, held[0], held[1]))
            elif p.index == n:
                accepted[(p.code, p.index)] = p.text
                nxt[p.code] = n + 1
                outcomes.append(None)
            elif p.index > n:
                outcomes.append(ActionGap(p.code, p.index, n))
            elif (p.code, p.index) in accepted:
                same = _same_json(accepted[(p.code, p.index)], p.text)
                outcomes.append(None if same else ActionConflict(p.code, p.index))
            else:
                outcomes.append(None)
                self.to_check.append(i)
        self._batch = batch

    def check_stored(self, i: int, row: Row | None) -> None:
        """Judge ``batch[i]`` against the action stored at its index."""
        p = self._batch[i]
        if row is None:
            self.outcomes[i] = CorruptRow(f"room {p.code}: stored action {p.index} is missing")
        elif not _same_json(row[0], p.text):
            self.outcomes[i] = ActionConflict(p.code, p.index)

    def insert_rows(self) -> list[tuple[str, int, str]]:
        return [(c, i, t) for (c, i), t in self.accepted.items()]


def next_index(last: Any) -> int:
    """A room's next action index from its last stored one (None: no action)."""
    return 0 if last is None else int(last) + 1


def _held(epochs: Mapping[str, tuple[int, str | None]] | None, code: str) -> tuple[int, str | None]:
    if epochs is None:
        raise RuntimeError("a fenced append needs the rooms' epochs")  # a programming error
    return epochs[code]


def _same_json(stored: Any, text: str) -> bool:
    if stored == text:
        return True
    return bool(load_json(stored, "stored action") == load_json(text, "action"))
