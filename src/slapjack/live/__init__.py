"""The live table: one driver for every table played in real time.

``LiveTable`` (:mod:`.table`) runs a game live: turn timers, races and their
closing, reslap rounds, the say-it call wait, the time limit, bots and the
seats they cover, with time as data. The server's rooms, the terminal game and
the simulator are its hosts. Standard library, ``core`` and ``bots`` only.
"""

from .referee import LocalReferee, RacePolicy
from .seating import BotFactory, Seating, seat_bot_seed
from .table import LiveError, LiveTable
from .tally import Tally
from .timing import BOT_FLINCH_LIMIT_MS, MAX_ROUNDS, LiveTiming, Tempo, TimingError

__all__ = [
    "BOT_FLINCH_LIMIT_MS",
    "MAX_ROUNDS",
    "BotFactory",
    "LiveError",
    "LiveTable",
    "LiveTiming",
    "LocalReferee",
    "RacePolicy",
    "Seating",
    "Tally",
    "Tempo",
    "TimingError",
    "seat_bot_seed",
]
