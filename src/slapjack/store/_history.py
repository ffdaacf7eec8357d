"""The store's finished games over SQL: the history, a game's record and
result, and each player's figures (shared by both adapters through
:class:`~slapjack.store._sql.SqlStore`)."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from .base import (
    GameSummary,
    PlayerStats,
    check_code,
    check_epoch,
    check_game_id,
    check_name,
    check_object,
    check_paging,
    dump_json,
    from_ms,
    load_json,
    now_ms,
)
from .errors import BadInput, StoreUnavailable, UnknownGame
from .migrations import name_key
from .summary import game_facts

T = TypeVar("T")
Conn = Any
Row = Any


_SUMMARY_COLUMNS = "id, room, game, preset, players, winners, loser, started_ms, finished_ms, flips, actions, complete"


def _epoch(epoch: Any) -> int | None:
    return None if epoch is None else check_epoch(epoch)


class HistorySql:
    """The finished games' part of the SQL store (its rooms' part is ``SqlStore``).
    A player is looked up by the folded ``name_key`` of their name: any case
    finds them, through an index."""

    async def _run(self, body: Callable[[Conn], Awaitable[T]], *, write: bool) -> T:
        raise NotImplementedError

    async def _fence(self, conn: Conn, code: str, epoch: int | None) -> None:
        raise NotImplementedError

    async def finish_game(
        self,
        code: str | None,
        record: Mapping[str, Any],
        result: Mapping[str, Any] | None = None,
        *,
        epoch: int | None = None,
    ) -> int:
        if code is not None:
            code = check_code(code)
        epoch = _epoch(epoch)
        if epoch is not None and code is None:
            raise BadInput("a fenced finish_game names its room")
        record_obj = check_object(record, "record")
        record_text = dump_json(record_obj, "record")
        result_text = dump_json(check_object(result or {}, "result"), "result")
        facts = game_facts(record_obj)
        sha = hashlib.sha256(record_text.encode()).hexdigest()

        async def body(conn: Conn) -> int:
            if epoch is not None and code is not None:
                await self._fence(conn, code, epoch)
            row = await conn.fetchone("SELECT id FROM games WHERE record_sha = ?", sha)
            if row is not None:
                return int(row[0])
            finished = now_ms()
            started = finished
            bots: set[int] = set()
            if code is not None:
                room = await conn.fetchone("SELECT game_started_ms FROM rooms WHERE code = ?", code)
                if room is not None:
                    started = int(room[0])
                    for seat, name, is_bot in await conn.fetch(
                        "SELECT seat, name, is_bot FROM room_seats WHERE code = ?", code
                    ):
                        if is_bot and seat < len(facts.players) and facts.players[seat] == name:
                            bots.add(int(seat))
            row = await conn.fetchone(
                "INSERT INTO games (record_sha, room, game, preset, players, winners, loser,"
                " started_ms, finished_ms, flips, actions, complete, record, result)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (record_sha) DO NOTHING RETURNING id",
                sha,
                code,
                facts.game,
                facts.preset,
                dump_json(list(facts.players), "players"),
                dump_json(list(facts.winners), "winners"),
                facts.loser,
                started,
                finished,
                facts.flips,
                facts.actions,
                int(facts.complete),
                record_text,
                result_text,
            )
            if row is None:  # stored meanwhile by another process
                row = await conn.fetchone("SELECT id FROM games WHERE record_sha = ?", sha)
                if row is None:
                    raise StoreUnavailable("the game was neither stored nor found")
                return int(row[0])
            game_id = int(row[0])
            await conn.executemany(
                "INSERT INTO game_players (game_id, seat, name, name_key, place, is_winner,"
                " is_loser, is_bot, cards, jacks, slaps, wrong_slaps)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        game_id,
                        line.seat,
                        line.name,
                        name_key(line.name),
                        line.place,
                        int(line.is_winner),
                        int(line.is_loser),
                        int(line.seat in bots),
                        line.cards,
                        line.jacks,
                        line.slaps,
                        line.wrong_slaps,
                    )
                    for line in facts.lines
                ],
            )
            reactions = [
                (game_id, line.name, name_key(line.name), r)
                for line in facts.lines
                for r in line.reactions
            ]
            if reactions:
                await conn.executemany(
                    "INSERT INTO reactions (game_id, name, name_key, reaction_ms)"
                    " VALUES (?, ?, ?, ?)",
                    reactions,
                )
            return game_id

        return await self._run(body, write=True)

    async def list_games(
        self, limit: int = 50, offset: int = 0, player: str | None = None
    ) -> list[GameSummary]:
        limit, offset = check_paging(limit, offset)

        async def body(conn: Conn) -> list[GameSummary]:
            if player is None:
                rows = await conn.fetch(
                    f"SELECT {_SUMMARY_COLUMNS} FROM games ORDER BY id DESC LIMIT ? OFFSET ?",
                    limit,
                    offset,
                )
            else:
                rows = await conn.fetch(
                    f"SELECT {_SUMMARY_COLUMNS} FROM games WHERE id IN"
                    " (SELECT game_id FROM game_players WHERE name_key = ?)"
                    " ORDER BY id DESC LIMIT ? OFFSET ?",
                    name_key(check_name(player)),
                    limit,
                    offset,
                )
            return [_summary(r) for r in rows]

        return await self._run(body, write=False)

    async def count_games(self, player: str | None = None) -> int:
        async def body(conn: Conn) -> int:
            if player is None:
                row = await conn.fetchone("SELECT COUNT(*) FROM games")
            else:
                row = await conn.fetchone(
                    "SELECT COUNT(DISTINCT game_id) FROM game_players WHERE name_key = ?",
                    name_key(check_name(player)),
                )
            return int(row[0]) if row is not None else 0

        return await self._run(body, write=False)

    async def get_game(self, game_id: int) -> dict[str, Any]:
        return await self._game_json(game_id, "record")

    async def _game_json(self, game_id: int, column: str) -> dict[str, Any]:
        """A finished game's ``record`` or ``result`` column, decoded."""
        game_id = check_game_id(game_id)

        async def body(conn: Conn) -> dict[str, Any]:
            row = await conn.fetchone(f"SELECT {column} FROM games WHERE id = ?", game_id)
            if row is None:
                raise UnknownGame(f"no finished game {game_id}")
            value: dict[str, Any] = load_json(row[0], f"game {game_id} {column}")
            return value

        return await self._run(body, write=False)

    async def get_summary(self, game_id: int) -> GameSummary:
        game_id = check_game_id(game_id)

        async def body(conn: Conn) -> GameSummary:
            row = await conn.fetchone(f"SELECT {_SUMMARY_COLUMNS} FROM games WHERE id = ?", game_id)
            if row is None:
                raise UnknownGame(f"no finished game {game_id}")
            return _summary(row)

        return await self._run(body, write=False)

    async def get_result(self, game_id: int) -> dict[str, Any]:
        return await self._game_json(game_id, "result")

    async def player_stats(self, name: str) -> PlayerStats:
        name = check_name(name)
        key = name_key(name)

        async def body(conn: Conn) -> PlayerStats:
            row = await conn.fetchone(
                "SELECT COUNT(*), COALESCE(SUM(p.is_winner), 0), COALESCE(SUM(p.jacks), 0),"
                " COALESCE(SUM(p.slaps), 0), COALESCE(SUM(p.wrong_slaps), 0),"
                " MAX(g.finished_ms)"
                " FROM game_players p JOIN games g ON g.id = p.game_id"
                " WHERE p.name_key = ?",
                key,
            )
            count_row = await conn.fetchone(
                "SELECT COUNT(*) FROM reactions WHERE name_key = ?", key
            )
            n = int(count_row[0]) if count_row is not None else 0
            median: float | None = None
            if n:
                middle = await conn.fetch(
                    "SELECT reaction_ms FROM reactions WHERE name_key = ?"
                    " ORDER BY reaction_ms LIMIT ? OFFSET ?",
                    key,
                    2 - n % 2,
                    (n - 1) // 2,
                )
                median = sum(float(r[0]) for r in middle) / len(middle)
            if row is None or not row[0]:
                return PlayerStats(name)
            return PlayerStats(
                name=name,
                games=int(row[0]),
                wins=int(row[1]),
                jacks=int(row[2]),
                slaps=int(row[3]),
                wrong_slaps=int(row[4]),
                median_reaction_ms=median,
                last_played=from_ms(row[5], f"stats of {name}") if row[5] is not None else None,
            )

        return await self._run(body, write=False)


def _summary(row: Row) -> GameSummary:
    where = f"game {row[0]}"
    players = load_json(row[4], f"{where} players", kind=list)
    winners = load_json(row[5], f"{where} winners", kind=list)
    return GameSummary(
        id=int(row[0]),
        room=row[1],
        game=str(row[2]),
        preset=str(row[3]),
        players=tuple(str(p) for p in players),
        winners=tuple(str(w) for w in winners),
        loser=row[6],
        started_at=from_ms(row[7], where),
        finished_at=from_ms(row[8], where),
        flips=int(row[9]),
        actions=int(row[10]),
        complete=bool(row[11]),
    )
