"""The HTTP and WebSocket routes, one router per resource.

Each module holds one :class:`fastapi.APIRouter`; :func:`slapjack.server.create_app`
includes them. What they share (the lobby, the limits, the rate limiters) is the
app's :class:`~.context.ServerContext`, reached through :func:`~.context.context`.

- :mod:`.pages` — the browser's HTML pages and static files
- :mod:`.rooms` — rooms: list, create, play now, join, the invite QR code
- :mod:`.games` — finished games: history, records, replays, player stats
- :mod:`.info` — the option table, the rules texts, ``/api/metrics``
- :mod:`.play` — ``/ws/{code}``, the game itself
- :mod:`.testhooks` — rooms with a stacked deck and a hand-moved clock (tests only)
"""
