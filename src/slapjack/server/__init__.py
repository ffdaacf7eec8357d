"""The game server: lobby (HTTP), rooms, the WebSocket protocol, referees.

``create_app()`` builds the ASGI application; ``slapjack serve`` runs it.
"""

from __future__ import annotations

from .app import create_app
from .referee import ArrivalReferee, Referee, referee_factory
from .room import Room, RoomSetup, RoomTiming

__all__ = [
    "ArrivalReferee",
    "Referee",
    "Room",
    "RoomSetup",
    "RoomTiming",
    "create_app",
    "referee_factory",
]
