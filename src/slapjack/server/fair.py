"""The fair referee (issue 5): the faster hand wins, whatever the network.

Pure logic: no sockets, no clock. The room tells it, in server milliseconds,
when it sent each seat a ping or a card and when answers and slaps arrived; it
returns the reaction time each slap is ranked by and how long a race waits.

The method (``docs/fairness.md`` explains it at length):

* A client measures its reaction on its own clock (card painted → input) and
  claims it. The server saw ``elapsed = arrival - send`` for that slap, which is
  the reaction plus the wire time of the card and of the slap. So the claim
  implies a wire time ``elapsed - claimed``; it cannot exceed what the seat's
  network plausibly takes, its *allowance* ``U``. The bound is
  ``bounded = max(claimed, elapsed - U)``: an honest claim on a normal round
  trip is untouched, a claim that needs an impossibly slow network is raised
  to the shortest reaction that network allows.
* ``U`` comes from the seat's clock-sync round trips (a high quantile plus a
  capped slack). The kernel's TCP estimate, where the server has it, unmasks
  a client that holds back its clock-sync replies.
* A seat whose implied wire times are consistently longer than its pings
  (a forger), or whose pings are slower than its TCP connection (a client that
  delays its clock-sync replies), is *held*: its allowance becomes tight, the
  typical rather than the worst round trip of its measured network.
* A claim below the anticipation floor (default 100 ms) is a false start: it
  is ranked after every real reaction.
* A stamped claim longer than the card has been out (``arrival - first send``,
  plus :data:`STALE_SLACK_MS`) is no reaction but a stamp older than the card:
  a page that kept its stamp of the card over a restart of the server, whose
  rebuilt game counts the card as shown again when it goes on (issue 12). It
  is replaced by ``elapsed`` less the seat's fastest round trip (so never
  better than an honest stamp of the same slap would be), and the referee
  learns nothing from it.
* The race waits until no seat that has not slapped yet could still beat the
  best bounded reaction: ``max(send + U)`` over those seats plus the best
  reaction, capped.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from .clocksync import (
    DEFAULT_WINDOW,
    ClockSync,
    ClockSyncError,
    NetworkProfile,
    Transport,
    quantile,
)
from .fairconfig import BoundDetail, FairConfig
from .fairstats import (
    Legs,
    Recent,
    floor_shift,
    median_error,
    one_way,
    rank_shift,
    stamped_reaction,
)

__all__ = ["BoundDetail", "FairConfig", "FairReferee", "SeatTiming"]

_SENT_HISTORY: Final = 8
_KERNEL_HISTORY: Final = 16
_DETAILS: Final = 64
"""How many judged slaps a referee keeps for logs and tests (the last 16 races of four)."""
_SLAP_HISTORY: Final = max(FairConfig().suspect_window, FairConfig().shift_window)
STALE_SLACK_MS: Final = 50.0
"""How much longer than the card has been out a stamped claim may be before it
counts as stale (an honest one is shorter by the wire time; this is room for
clock rates and rounding only)."""


@dataclass(slots=True)
class SeatTiming:
    """Everything the referee knows about one seat's connection (one per
    connected player: its histories are flat arrays of floats)."""

    sync: ClockSync
    sent: dict[int, float] = field(default_factory=dict)
    """When the latest cards were sent to the seat, by flip id (oldest first)."""
    first_sent: dict[int, float] = field(default_factory=dict)
    """When each card of :attr:`sent` was first sent (a reslap cue sends it again)."""
    wires: Recent = field(default_factory=lambda: Recent(_SLAP_HISTORY))
    """Implied wire times (elapsed − claimed) of recent slaps."""
    held: bool = False
    reason: str | None = None
    """Which test holds the seat: stamps, pongs, cusum, shift, leg, kernel or tail."""
    strikes: int = 0
    evidence: float = 0.0
    """One-sided CUSUM of implied wire times above the seat's fast round trips."""
    """Slaps whose stamps contradict the clock offset (arrived before input)."""
    slaps: int = 0
    first_held: int | None = None
    """How many of the seat's slaps had been judged when it was first held."""
    raised: int = 0
    false_starts: int = 0
    kernel: Recent = field(default_factory=lambda: Recent(_KERNEL_HISTORY))
    """The kernel's recent smoothed round trips (SRTT) for this connection."""
    legs: Legs = field(default_factory=lambda: Legs(_SLAP_HISTORY))
    """One-way times (card out, slap back) of recent stamped slaps, through the
    clock offset of the moment: see :meth:`FairReferee._legs_shifted`."""
    ping_legs: Legs = field(default_factory=lambda: Legs(DEFAULT_WINDOW))
    """The same for the pings (ping out, pong back)."""

    def kernel_rtt(self) -> float | None:
        """The mean of :attr:`kernel` (about the connection's mean round trip)."""
        return sum(self.kernel) / len(self.kernel) if self.kernel else None


class FairReferee:
    """The fair referee; implements ``slapjack.server.referee.Referee``."""

    def __init__(self, config: FairConfig | None = None) -> None:
        self.config = config or FairConfig()
        self.seats: dict[int, SeatTiming] = {}
        self.details: deque[BoundDetail] = deque(maxlen=_DETAILS)
        self._race_flip: int | None = None
        self._race_first: float | None = None
        self._race_best: float | None = None
        self._race_slapped: set[int] = set()
        self._keep = max(self.config.suspect_window, self.config.shift_window)

    # ---------------------------------------------------------------- state

    def seat(self, seat: int) -> SeatTiming:
        state = self.seats.get(seat)
        if state is None:
            state = self.seats[seat] = self._fresh()
        return state

    def _fresh(self) -> SeatTiming:
        """A seat on a new connection: nothing measured yet."""
        sync = ClockSync()
        return SeatTiming(
            sync,
            wires=Recent(self._keep),
            legs=Legs(self._keep),
            ping_legs=Legs(sync.window),
        )

    # ---------------------------------------------------------------- input

    def on_ping_sent(self, seat: int, ping_id: int, now_ms: float) -> None:
        self.seat(seat).sync.ping_sent(ping_id, now_ms)

    def on_pong(self, seat: int, ping_id: int, client_time_ms: float, now_ms: float) -> None:
        state = self.seat(seat)
        sync = state.sync
        try:
            sent = sync.answer(ping_id, client_time_ms, now_ms)
        except ClockSyncError:
            sync.dropped += 1
            return
        # (the legs need an offset from a few of the fastest exchanges; the
        # offset alone: the rest of the profile waits until a slap needs it)
        if sent is None or sync.count < sync.best:
            return
        offset = sync.offset()
        if offset is not None:
            client = float(client_time_ms)
            state.ping_legs.append(*one_way(sent, client, client, float(now_ms), offset))

    def on_transport_rtt(
        self,
        seat: int,
        srtt_ms: float,
        rttvar_ms: float,
        min_rtt_ms: float | None = None,
        now_ms: float = 0.0,
    ) -> None:
        """The kernel's TCP round-trip estimate for ``seat``'s connection (``TCP_INFO``)."""
        state = self.seat(seat)
        state.sync.set_transport(srtt_ms, rttvar_ms, min_rtt_ms, now_ms)
        state.kernel.append(float(srtt_ms))

    def on_card_sent(self, seat: int, flip_id: int, now_ms: float) -> None:
        state = self.seat(seat)
        sent, first = state.sent, state.first_sent
        sent.pop(flip_id, None)  # (to the end: the latest)
        sent[flip_id] = float(now_ms)
        first.setdefault(flip_id, float(now_ms))
        while len(sent) > _SENT_HISTORY:
            first.pop(next(iter(sent)), None)
            del sent[next(iter(sent))]
        if self._race_flip != flip_id or seat in self._race_slapped:
            # a new card, or a fresh cue for a reslap round: a new race
            self._race_flip = flip_id
            self._race_first = None
            self._race_best = None
            self._race_slapped = set()

    def on_disconnect(self, seat: int) -> None:
        """A new connection is a new network: forget the round trips, keep the verdict."""
        old = self.seats.get(seat)
        if old is None:
            return
        fresh = self._fresh()
        fresh.held, fresh.reason, fresh.first_held = old.held, old.reason, old.first_held
        fresh.strikes, fresh.evidence = old.strikes, old.evidence
        fresh.sent, fresh.first_sent = old.sent, old.first_sent
        self.seats[seat] = fresh

    # ------------------------------------------------------------- the bound

    def allowance(self, seat: int) -> float:
        """The longest wire time (card out + slap back) ``seat``'s slap may plausibly take."""
        cfg = self.config
        state = self.seat(seat)
        prof = state.sync.profile()
        transport = state.sync.transport
        if prof is None:
            if transport is not None:
                return transport.upper + cfg.transport_margin_ms
            return cfg.unknown_rtt_ms
        if state.held:
            return self._tight(state, prof)
        high = prof.rtt_high
        slack = min(max(high - prof.rtt_median, cfg.slack_min_ms), cfg.slack_max_ms)
        # (no cap from the kernel's estimate here: it does not see the delays of
        # the applications at both ends, which an honest slap has too; a seat
        # whose pings are slower than its TCP connection is held instead)
        return min(high + slack, prof.rtt_min + cfg.spread_cap_ms)

    def _tight(self, state: SeatTiming, prof: NetworkProfile) -> float:
        """A held seat's allowance: its typical, not its worst, round trip."""
        cfg = self.config
        spread = min(prof.rtt_median - prof.rtt_min, cfg.held_spread_cap_ms)
        recent = state.wires.last(cfg.suspect_window)
        if len(recent) >= cfg.suspect_min:
            wires = sorted(recent)
            spread = min(spread, quantile(wires, 0.5) - wires[0])
        spread = max(spread, 0.0)
        allowance = prof.rtt_min + spread
        transport = state.sync.transport
        if transport is not None:
            # pongs held back inflate the pings, not the kernel's measurements
            allowance = min(allowance, transport.srtt_ms + cfg.transport_tight_ms)
            if transport.min_rtt_ms is not None:
                allowance = min(allowance, transport.min_rtt_ms + spread)
        return allowance

    def bound_reaction(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> float:
        return self.judge(seat, flip_id, claimed_ms, shown_at, input_at, now_ms).bounded

    def judge(
        self,
        seat: int,
        flip_id: int,
        claimed_ms: float,
        shown_at: float | None,
        input_at: float | None,
        now_ms: float,
    ) -> BoundDetail:
        """Bound one slap and learn from it; :meth:`bound_reaction` returns ``.bounded``."""
        cfg = self.config
        state = self.seat(seat)
        claimed = float(claimed_ms)
        if not math.isfinite(claimed) or claimed < 0:
            claimed = 0.0
        stamped = stamped_reaction(shown_at, input_at)
        if stamped is not None and cfg.use_stamps:
            claimed = max(claimed, stamped)  # two versions of one reaction: the worse one
        sent = state.sent.get(flip_id)
        allowance = self.allowance(seat)
        held_before = state.held
        if sent is None:
            elapsed = None
            bounded = claimed
        else:
            elapsed = now_ms - sent
            out = now_ms - state.first_sent.get(flip_id, sent)
            stale = stamped is not None and claimed > out + STALE_SLACK_MS
            if stale:  # longer than the card has been out: an old stamp, not a reaction
                claimed = max(0.0, elapsed - min(self._least_wire(state), allowance))
            bounded = max(claimed, elapsed - allowance)
            if not stale:
                self._learn(state, elapsed - claimed, shown_at, input_at, sent, now_ms)
        raised = bounded > claimed
        false_start = claimed < cfg.floor_ms
        state.slaps += 1
        if state.held and state.first_held is None:
            state.first_held = state.slaps
        state.raised += raised
        state.false_starts += false_start
        res = cfg.resolution_ms
        value = round(bounded / res) * res
        if false_start:
            value = cfg.false_start_ms + value
        else:
            self._note_race(seat, flip_id, value, now_ms)
        detail = BoundDetail(
            seat, flip_id, claimed, elapsed, allowance, value, raised, false_start, held_before
        )
        self.details.append(detail)
        return detail

    @staticmethod
    def _least_wire(state: SeatTiming) -> float:
        """The least wire time a slap of this seat takes (its fastest ping; else
        the kernel's fastest round trip; else 0): what a slap whose stamps are
        stale is charged for its wire (an honest slap's is at least that)."""
        prof = state.sync.profile()
        if prof is not None:
            return prof.rtt_min
        transport = state.sync.transport
        if transport is not None and transport.min_rtt_ms is not None:
            return transport.min_rtt_ms
        return 0.0

    def _learn(
        self,
        state: SeatTiming,
        wire: float,
        shown_at: float | None,
        input_at: float | None,
        sent: float,
        now_ms: float,
    ) -> None:
        """Cheat detection from one slap's implied wire time and stamps."""
        cfg = self.config
        state.wires.append(wire)
        prof = state.sync.profile()
        if prof is None:
            return
        if cfg.use_stamps and input_at is not None and shown_at is not None:
            # with the clock offset, the slap cannot arrive before it was input,
            # nor the card be painted before it was sent
            slop = prof.offset_error + 2.0
            down, up = one_way(sent, shown_at, input_at, now_ms, prof.offset)
            if up < -slop or down < -slop:
                state.strikes += 1
            state.legs.append(down, up)
        state.reason = self._suspect(state, prof)
        state.held = state.reason is not None

    def _suspect(self, state: SeatTiming, prof: NetworkProfile) -> str | None:
        """Why this seat is held, or ``None``: is it claiming faster than its network allows, or hiding its network?

        Each slap's implied wire time is compared with the seat's fastest recent
        round trip (a client cannot make a ping faster than its network, and
        randomly delayed pongs leave the fastest almost untouched), in units of
        the spread of its implied wire times (its pings' until it has a few slaps).
        The evidence adds up in a one-sided CUSUM: an honest seat drifts back to
        zero, a forger climbs by a few units a slap and is held within a handful
        of races. A second test counts how often the slaps land above the pings'
        typical round trip, for forgers that blur their claims.
        """
        cfg = self.config
        if state.strikes >= 3:
            return "stamps"
        transport = prof.transport
        recent = state.sync.recent_rtts(cfg.reference_pings)
        if transport is not None and self._pongs_held(state, prof, recent, transport):
            return "pongs"
        wires = state.wires.last(cfg.suspect_window)
        if len(wires) >= cfg.suspect_min:
            ordered = sorted(wires)
            med = quantile(ordered, 0.5)
            scale = 1.4826 * quantile(sorted([abs(w - med) for w in ordered]), 0.5)
        else:
            scale = 1.4826 * prof.rtt_mad
        scale = max(scale, cfg.scale_min_ms)
        reference = min(recent)
        if transport is not None:
            reference = min(reference, transport.srtt_ms)
        z = max(0.0, wires[-1] - reference - cfg.display_ms) / scale
        state.evidence = min(
            max(0.0, state.evidence + min(z, cfg.cusum_clip) - cfg.cusum_drift),
            3.0 * cfg.cusum_limit,
        )
        limit = cfg.cusum_limit / 2.0 if state.held else cfg.cusum_limit
        if state.evidence > limit:
            return "cusum"
        shifted = self._shifted(state)
        if shifted is not None:
            return shifted
        # a forger that adds noise to its claims widens its own spread (the scale
        # above) but still lands above its pings' typical round trip too often
        tail = wires[-cfg.exceed_window :]
        if len(tail) >= cfg.exceed_window:
            typical = quantile(state.sync.rtts(), 0.75) + cfg.display_ms
            share = sum(w > typical for w in tail) / len(tail)
            if share > (cfg.exceed_share / 1.2 if state.held else cfg.exceed_share):
                return "tail"
        return None

    def _pongs_held(
        self, state: SeatTiming, prof: NetworkProfile, recent: list[float], transport: Transport
    ) -> bool:
        """Are the seat's pings slower than its TCP connection? Then the client
        holds back its clock-sync replies (to look further away than it is).

        Two tests, each with room for the network's own variation (RTTVAR) and
        the applications' share of a ping: even the fastest recent ping is slower
        than the connection's fastest round trip (a constant hold), or the pings'
        median is above the kernel's mean round trip (a random hold)."""
        cfg = self.config
        low = transport.min_rtt_ms
        tol = cfg.suspect_tol_ms + transport.rttvar_ms + cfg.app_delay_ms / 2.0
        if low is not None and min(recent) - low > tol:
            return True
        kernel = state.kernel_rtt() or transport.srtt_ms
        error = median_error(transport.rttvar_ms, prof.samples)
        return prof.rtt_median - kernel > cfg.suspect_tol_ms + cfg.app_delay_ms + error

    def _shifted(self, state: SeatTiming) -> str | None:
        """Do the seat's slaps, as a whole, take longer than its pings?

        A forger that takes less off its reactions than its network's jitter
        hides each single slap in that jitter, but not all of them: its implied
        wire times are its round trips shifted by the forgery. A rank-sum test
        of the recent slaps against the window of pings says whether there is a
        shift; the Hodges–Lehmann estimate says how large it is.
        """
        cfg = self.config
        slaps = state.wires.last(cfg.shift_window)
        if len(slaps) < cfg.shift_min:
            return None
        scale = 0.5 if state.held else 1.0  # once held, released only well below
        frame = cfg.display_ms / 2.0  # an honest display's typical wait for a frame
        if self._shift_found(slaps, [rtt + frame for rtt in state.sync.rtts()], scale):
            return "shift"
        if self._legs_shifted(state, scale):
            return "leg"
        transport = state.sync.transport
        if transport is None or not state.kernel:
            return None
        # The same against the kernel's round trip, which a client cannot slow
        # down the way it can hold back its pongs: the slaps' median against the
        # mean of the kernel's recent smoothed RTTs (about the mean round trip,
        # which is above the median of a skewed network's), with room for the
        # sampling error of that median (the RTT's sd is about 1.25 RTTVAR) and
        # for what the kernel does not see: both applications and the display.
        ordered = sorted(slaps)
        error = median_error(transport.rttvar_ms, len(ordered))
        excess = quantile(ordered, 0.5) - (state.kernel_rtt() or transport.srtt_ms)
        tol = cfg.shift_tol_ms + cfg.display_ms + cfg.app_delay_ms + error
        return "kernel" if excess > tol * scale else None

    def _legs_shifted(self, state: SeatTiming, scale: float) -> bool:
        """The shift test on each one-way leg: do the stamped slaps' cards take
        longer to be painted, or their slaps longer to arrive after input, than
        the pings take in the same direction?

        A client's forgery moves one of its stamps (a later "painted", an earlier
        "input"), so it lands whole on one leg, whose jitter is only part of the
        round trip's: the same shift stands out of fewer slaps. Each ping's and
        each slap's legs go through the clock offset of its moment, so an error
        in the offset (an asymmetric route) moves pings and slaps alike, and a
        slowly drifting client clock is followed. A forger that splits its
        forgery between the stamps is left to the round-trip test, which sees
        the sum.
        """
        cfg = self.config
        n = cfg.shift_window
        legs, pings = state.legs, state.ping_legs
        if min(len(legs), n) < cfg.shift_min or len(pings) < cfg.shift_min:
            return False
        frame = cfg.display_ms / 2.0
        if self._shift_found(
            legs.out[-n:].tolist(), sorted([out + frame for out in pings.out]), scale
        ):
            return True
        return self._shift_found(legs.back[-n:].tolist(), sorted(pings.back), scale)

    def _shift_found(self, slaps: list[float], pings: list[float], scale: float) -> bool:
        """The rank-sum test and the size of the shift, both past their thresholds
        (``scale`` 0.5: a held seat is released only well below them)."""
        cfg = self.config
        min_z = cfg.shift_z * scale
        tol = cfg.shift_tol_ms * scale
        z, shift = rank_shift(slaps, pings, min_z=min_z)
        if z > min_z and shift > tol:
            return True
        if not cfg.floor_q or len(slaps) < cfg.floor_min:
            return False
        z, shift = floor_shift(slaps, pings, cfg.floor_q)
        return z > cfg.floor_z * scale and shift > tol

    # ------------------------------------------------------------- the window

    def _note_race(self, seat: int, flip_id: int, value: float, now_ms: float) -> None:
        if self._race_flip != flip_id:
            self._race_flip = flip_id
            self._race_first = None
            self._race_best = None
            self._race_slapped = set()
        self._race_slapped.add(seat)
        if self._race_first is None:
            self._race_first = now_ms
        if self._race_best is None or value < self._race_best:
            self._race_best = value

    def window_ms(self, seats: Sequence[int]) -> float:
        """How long the race stays open after its first slap arrived.

        Every seat that has not slapped yet gets until ``send + U`` plus the best
        bounded reaction so far: a later slap is bounded above that and cannot win.
        """
        cfg = self.config
        flip = self._race_flip
        first = self._race_first
        best = self._race_best
        if flip is None or first is None or best is None:
            return cfg.window_cap_ms
        deadline = first
        for seat in seats:
            if seat in self._race_slapped:
                continue
            state = self.seats.get(seat)
            sent = state.sent.get(flip) if state is not None else None
            if sent is None:
                return cfg.window_cap_ms
            deadline = max(deadline, sent + self.allowance(seat) + best + cfg.resolution_ms)
        return min(max(deadline - first, cfg.window_min_ms), cfg.window_cap_ms)

    # ------------------------------------------------------------- reports

    def report(self, seat: int) -> dict[str, float | int | bool | str | None]:
        """A seat's timing summary (JSON-ready) for logs and the room status."""
        state = self.seat(seat)
        prof = state.sync.profile()
        return {
            "samples": prof.samples if prof else 0,
            "rtt_ms": round(prof.rtt_median, 1) if prof else None,
            "jitter_ms": round(prof.jitter, 1) if prof else None,
            "allowance_ms": round(self.allowance(seat), 1),
            "held": state.held,
            "reason": state.reason,
            "slaps": state.slaps,
            "first_held": state.first_held,
            "raised": state.raised,
            "false_starts": state.false_starts,
        }
