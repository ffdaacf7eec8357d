"""The anticipation floor: how a slap faster than a human can react is ranked.

RULES.md section 4: a reaction below a physiological floor (default 100 ms, as
in athletics' false-start rule) counts as anticipation and cannot win. The
engine ranks slaps by the reaction it is given, so every referee (the web
server's, the terminal game's) passes a false start in as its reaction plus
:data:`FALSE_START_OFFSET_MS`: it then ranks behind every real reaction, and
whoever shows or counts reactions can still tell it apart and recover the
measured value.
"""

from __future__ import annotations

from typing import Final

ANTICIPATION_FLOOR_MS: Final = 100.0
FALSE_START_OFFSET_MS: Final = 5000.0


def ranked_reaction(reaction_ms: float, floor_ms: float = ANTICIPATION_FLOOR_MS) -> float:
    """The value a race ranks ``reaction_ms`` by: itself, or offset if below the floor."""
    if reaction_ms < floor_ms:
        return reaction_ms + FALSE_START_OFFSET_MS
    return reaction_ms


def is_false_start(ranked_ms: float) -> bool:
    """Whether a ranked reaction stands for a false start."""
    return ranked_ms >= FALSE_START_OFFSET_MS


def measured_reaction(ranked_ms: float) -> float:
    """The measured reaction behind a ranked value (the offset taken off a false start)."""
    return ranked_ms - FALSE_START_OFFSET_MS if ranked_ms >= FALSE_START_OFFSET_MS else ranked_ms
