"""The pure rules engine: standard library only, no clock, no I/O, no global random."""

from __future__ import annotations

from .actions import Action, Flip, Settle, Slap, TimeUp
from .cards import (
    ACE,
    DECK_SIZE,
    FULL_DECK,
    JACK,
    KING,
    QUEEN,
    RANKS,
    SUITS,
    Card,
    card_name,
    card_symbol,
    is_jack,
    is_red,
    parse_card,
    parse_deck,
    rank_of,
    suit_of,
)
from .errors import CardError, IllegalAction, RecordError, RulesError, SlapjackError
from .events import Event, event_to_dict
from .game import Game, check_players
from .record import FORMAT, Record, Replay, Table, final_position, replay
from .rules import (
    PRESETS,
    AfterJack,
    EmptyStack,
    GameKind,
    IrishGoal,
    Rules,
    Tie,
    WrongSlap,
    option_choices,
)
from .shuffle import shuffled_deck
from .view import View, observe, spectate

__all__ = [
    "ACE",
    "DECK_SIZE",
    "FORMAT",
    "FULL_DECK",
    "JACK",
    "KING",
    "PRESETS",
    "QUEEN",
    "RANKS",
    "SUITS",
    "Action",
    "AfterJack",
    "Card",
    "CardError",
    "EmptyStack",
    "Event",
    "Flip",
    "Game",
    "GameKind",
    "IllegalAction",
    "IrishGoal",
    "Record",
    "RecordError",
    "Replay",
    "Rules",
    "RulesError",
    "Settle",
    "Slap",
    "SlapjackError",
    "Table",
    "Tie",
    "TimeUp",
    "View",
    "WrongSlap",
    "card_name",
    "card_symbol",
    "check_players",
    "event_to_dict",
    "final_position",
    "is_jack",
    "is_red",
    "observe",
    "option_choices",
    "parse_card",
    "parse_deck",
    "rank_of",
    "replay",
    "shuffled_deck",
    "spectate",
    "suit_of",
]
