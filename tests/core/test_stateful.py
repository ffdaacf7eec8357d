"""Hypothesis drives random actions, legal and illegal, through every preset with 2-10 players.

After every step: the 52-card invariant, an illegal action left the game untouched,
some legal action exists, and the table's record replays to the same position.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from slapjack.core import Flip, IllegalAction, Rules, Slap, Table, TimeUp, observe

from .driver import Stats, can_go_on, check_replay, settles_cleanly, step
from .util import names

PRESETS = ["classic", "klatsch-bube", "say-it", "irish-snap", "irish-snap-winner"]
reactions = st.one_of(
    st.sampled_from([150.0, 200.0, 200.0, 250.0]),
    st.floats(min_value=0, max_value=2000, allow_nan=False),
    st.sampled_from([-1.0, float("nan"), float("inf"), 600_001.0]),
)
dts = st.one_of(st.integers(0, 500), st.integers(-50, -1))


class TableMachine(RuleBasedStateMachine):
    table: Table

    @initialize(
        preset=st.sampled_from(PRESETS),
        n=st.integers(2, 10),
        seed=st.integers(0, 2**64 - 1),
        time_limit=st.booleans(),
    )
    def start(self, preset: str, n: int, seed: int, time_limit: bool) -> None:
        options: dict[str, Any] = {"preset": preset}
        if time_limit and not preset.startswith("irish"):
            options["time_limit"] = 300
        self.table = Table.new(Rules.from_options(options), names(n), seed=seed)
        self.illegal = 0

    def _try(self, action: Any) -> None:
        game = self.table.game
        before = game.snapshot()
        recorded = len(self.table.record.actions)
        try:
            if isinstance(action, tuple):
                self.table.settle(final=action[1])
            else:
                self.table.apply(action)
        except IllegalAction:
            self.illegal += 1
            assert game.snapshot() == before
            assert len(self.table.record.actions) == recorded

    def _t(self, dt: int) -> int:
        return max(0, self.table.game.t + dt) if dt >= 0 else self.table.game.t + dt

    @rule(seat=st.integers(-1, 10), dt=dts)
    def flip_anyone(self, seat: int, dt: int) -> None:
        self._try(Flip(seat, self._t(dt)))

    @precondition(lambda self: not self.table.game.over and self.table.game.turn is not None)
    @rule(dt=st.integers(0, 500))
    def flip_on_turn(self, dt: int) -> None:
        game = self.table.game
        assert game.turn is not None
        self._try(Flip(game.turn, game.t + dt))

    @rule(seat=st.integers(-1, 10), reaction=reactions, call=st.booleans(), dt=dts)
    def slap(self, seat: int, reaction: float, call: bool, dt: int) -> None:
        self._try(Slap(seat, reaction, call, self._t(dt)))

    @precondition(lambda self: self.table.game.race_open)
    @rule(data=st.data(), reaction=st.sampled_from([150.0, 200.0, 250.0]), call=st.booleans())
    def slap_in_race(self, data: st.DataObject, reaction: float, call: bool) -> None:
        game = self.table.game
        seat = data.draw(st.sampled_from(game.in_seats()))
        self._try(Slap(seat, reaction, call, game.t))

    @rule(k=st.integers(1, 60), seed=st.integers(0, 2**32 - 1))
    def drive(self, k: int, seed: int) -> None:
        """A burst of table-like play (mostly legal) to get deeper into games."""
        rng = random.Random(seed)
        stats = Stats()
        for _ in range(k):
            if self.table.game.over:
                break
            step(self.table, rng, stats)

    @rule(final=st.booleans())
    def settle(self, final: bool) -> None:
        self._try(("settle", final))

    @rule(dt=dts)
    def time_up(self, dt: int) -> None:
        self._try(TimeUp(self._t(dt)))

    @invariant()
    def cards_and_replay(self) -> None:
        game = self.table.game
        game.check_invariant()
        assert can_go_on(game) and settles_cleanly(game)
        view = observe(game, 0)
        assert sum(view.stack_sizes) + view.centre_size == 52
        check_replay(self.table)


TestTableMachine = TableMachine.TestCase
