"""The fair referee's settings (:class:`FairConfig`, each threshold with its
reason) and how it judged a slap (:class:`BoundDetail`). See docs/fairness.md."""

from __future__ import annotations

import math
from dataclasses import dataclass

from slapjack.core.timing import ANTICIPATION_FLOOR_MS, FALSE_START_OFFSET_MS


@dataclass(frozen=True, slots=True)
class FairConfig:
    """The referee's settings (all in milliseconds unless said otherwise)."""

    floor_ms: float = ANTICIPATION_FLOOR_MS
    """Anticipation floor: a claimed reaction below it cannot win."""
    resolution_ms: float = 1.0
    """Bounded reactions are rounded to this; equal values are a tie (the ``tie`` rule)."""
    window_cap_ms: float = 1000.0
    """The longest a race waits after its first slap arrived."""
    window_min_ms: float = 20.0
    unknown_rtt_ms: float = 300.0
    """Allowance for a seat with no measurement yet."""
    slack_min_ms: float = 8.0
    slack_max_ms: float = 60.0
    spread_cap_ms: float = 250.0
    """A trusted allowance is at most the seat's fastest round trip plus this."""
    held_spread_cap_ms: float = 30.0
    """A held allowance is at most the seat's fastest round trip plus this."""
    transport_margin_ms: float = 30.0
    """Application delay allowed on top of the kernel's TCP bound (before any ping)."""
    transport_tight_ms: float = 5.0
    suspect_window: int = 24
    """How many recent implied wire times a seat keeps."""
    suspect_min: int = 5
    """Fewest slaps before their own spread is used to scale the evidence."""
    suspect_tol_ms: float = 8.0
    """Pings slower than the TCP estimate by more than this (plus its variation) are held back."""
    cusum_drift: float = 3.0
    """Evidence per slap (in spreads above the seat's fast round trips) an honest seat stays under."""
    cusum_clip: float = 6.0
    """One slap counts at most this much evidence (a single network hiccup is no proof)."""
    cusum_limit: float = 8.0
    """A seat is held once its accumulated evidence passes this (released below half of it)."""
    scale_min_ms: float = 3.0
    reference_pings: int = 16
    """The evidence compares slaps with the fastest of this many recent pings."""
    exceed_window: int = 20
    exceed_share: float = 0.7
    """Held if more than this share of the last ``exceed_window`` slaps imply a wire
    time above the 75 % quantile of the seat's pings (an honest seat: about 25 %)."""
    shift_window: int = 48
    """How many recent slaps the shift test compares with the seat's pings."""
    shift_min: int = 10
    """Fewest slaps before the shift test speaks."""
    shift_z: float = 3.0
    """How sure the shift test must be (a one-sided rank-sum z score) ..."""
    shift_tol_ms: float = 15.0
    """... that the seat's slaps take this much longer than its pings (the
    estimated shift), beyond an honest display's typical wait for its frame
    (half of ``display_ms``, added to the pings)."""
    floor_q: float = 0.1
    """The floor test compares the ``floor_q`` quantile of a seat's slaps with
    that of its pings (0: no floor test) ..."""
    floor_min: int = 15
    """... once it has this many slaps ..."""
    floor_z: float = 3.5
    """... and holds the seat when the shift's z score passes this and the
    shift itself passes ``shift_tol_ms``."""
    app_delay_ms: float = 17.0
    """What the applications at both ends (a busy server loop, a busy browser)
    may add to a typical ping, which the kernel's round trip does not see."""
    display_ms: float = 17.0
    """What a client's display may add to a card's trip before it is painted
    (one frame at 60 Hz): the cheat tests do not count it as evidence."""
    false_start_ms: float = FALSE_START_OFFSET_MS
    """A false start ranks as this plus its bounded reaction (after every real one)."""
    use_stamps: bool = True
    """Check the client's ``shown_at``/``input_at`` against the clock offset."""

    def __post_init__(self) -> None:
        for name in (
            "floor_ms",
            "window_cap_ms",
            "window_min_ms",
            "unknown_rtt_ms",
            "slack_min_ms",
            "slack_max_ms",
            "spread_cap_ms",
            "held_spread_cap_ms",
            "transport_margin_ms",
            "transport_tight_ms",
            "suspect_tol_ms",
            "cusum_drift",
            "cusum_clip",
            "cusum_limit",
            "scale_min_ms",
            "false_start_ms",
            "display_ms",
            "app_delay_ms",
            "shift_z",
            "shift_tol_ms",
            "floor_z",
        ):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if not self.resolution_ms > 0:
            raise ValueError("resolution_ms must be > 0")
        if self.slack_min_ms > self.slack_max_ms or self.window_min_ms > self.window_cap_ms:
            raise ValueError("a minimum is larger than its maximum")
        if not 0.0 <= self.floor_q <= 0.5 or self.floor_min < 2:
            raise ValueError("need 0 <= floor_q <= 0.5 and floor_min >= 2")
        if not 2 <= self.shift_min <= self.shift_window:
            raise ValueError("need 2 <= shift_min <= shift_window")
        if self.reference_pings < 1 or self.exceed_window < 1:
            raise ValueError("reference_pings and exceed_window must be at least 1")
        if not 0.25 < self.exceed_share <= 1.0:
            raise ValueError("exceed_share must be within (0.25, 1]")
        if self.suspect_window < 1 or not 1 <= self.suspect_min <= self.suspect_window:
            raise ValueError("need 1 <= suspect_min <= suspect_window")


@dataclass(frozen=True, slots=True)
class BoundDetail:
    """How one slap was judged (for logs, tests and the benchmark)."""

    seat: int
    flip_id: int
    claimed: float
    elapsed: float | None
    """Arrival minus the time the card was sent to this seat (``None``: unknown)."""
    allowance: float
    bounded: float
    """The value the race ranks by."""
    raised: bool
    false_start: bool
    held: bool
