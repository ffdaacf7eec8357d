"""``slapjack replay FILE... [--json]``: check and replay game records.

Every file is read, checked and replayed before anything is printed: if one
record is invalid, the command prints a single message on stderr naming the
file, the action index and what is wrong, prints nothing on stdout, and exits
with status 2. See docs/records.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from slapjack.core import (
    Record,
    RecordError,
    Replay,
    card_symbol,
    final_position,
    replay,
)

from .common import EXIT_USAGE, VersionOption, print_error

EXIT_INVALID = EXIT_USAGE


class ReplayFailed(Exception):
    """A record (or its file) could not be replayed; ``str()`` is the one-line message."""


MAX_RECORD_BYTES = 64 * 1024 * 1024
"""A record file larger than this is refused unread past it (the longest games
are a few hundred kilobytes; ``/dev/zero`` or a stray disk image is not one)."""


def load_and_replay(path: str) -> tuple[Record, Replay]:
    """Read ``path`` (``-`` is standard input), check it and replay it to the end."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        else:
            with Path(path).open("rb") as fh:
                data = fh.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise ReplayFailed(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise ReplayFailed(
            f"{path}: larger than {MAX_RECORD_BYTES // 2**20} MiB: not a game record"
        )
    try:
        record = Record.from_json(data)
        return record, replay(record, check=True)
    except RecordError as exc:
        raise ReplayFailed(f"{path}: {exc}") from None
    except AssertionError as exc:  # pragma: no cover - the 52-card invariant broke: an engine bug
        raise ReplayFailed(f"{path}: engine error: {exc}") from None


def describe(path: str, record: Record, result: Replay) -> Panel:
    """The readable final position of one record, as a Rich panel."""
    game = result.game
    names = game.players
    pos = final_position(result)
    rules = ", ".join(f"{k}={v}" for k, v in record.rules.to_options().items())

    if game.over:
        winners = ", ".join(pos["winners"]) or "nobody"
        label = "Winners" if len(pos["winners"]) > 1 else "Winner"
        status = Text.assemble(("Finished. ", "bold"), (f"{label}: {winners}", "bold green"))
        if pos["loser"] is not None:
            status.append(f"; loser: {pos['loser']}", style="bold red")
    else:
        status = Text.assemble(("In progress. ", "bold"), f"{pos['turn']} flips next.")

    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    table.add_column("player")
    table.add_column("cards", justify="right")
    table.add_column("top card")
    table.add_column("notes")
    out_rank = {s: k + 1 for k, s in enumerate(game.out_order)}
    for seat, name in enumerate(names):
        stack = game.stacks[seat]
        notes: list[str] = []
        if seat in game.winners:
            notes.append("winner")
        if seat == game.loser:
            notes.append("loser")
        if seat in out_rank and not game.rules.is_irish:
            notes.append(f"out ({_ordinal(out_rank[seat])})")
        elif seat in out_rank:
            notes.append(f"finished {_ordinal(out_rank[seat])}")
        if seat == game.turn and not game.over:
            notes.append("to flip")
        table.add_row(
            Text(name),  # a name is shown as written, never read as Rich markup ("[/]")
            str(len(stack)),
            card_symbol(stack[0]) if stack else "-",
            ", ".join(notes),
        )

    centre = game.centre
    if centre:
        face_up = centre[game.centre_hidden :]
        shown = " ".join(card_symbol(c) for c in face_up[-8:])
        more = "… " if len(face_up) > 8 else ""
        hidden = f" (+{game.centre_hidden} face down)" if game.centre_hidden else ""
        centre_line = f"Centre: {_count(len(centre), 'card')}, top last: {more}{shown}{hidden}"
    else:
        centre_line = "Centre: empty"
    lines: list[RenderableType] = [status, table, Text(centre_line)]
    if pos["out"]:  # nobody out yet (or the game ended first): no line saying "nobody"
        label = "Finished, in order: " if game.rules.is_irish else "Out, in order: "
        lines.append(Text(label + ", ".join(pos["out"])))
    lines.append(
        Text(f"{_count(len(result.events), 'event')} from {_count(len(record.actions), 'action')}.")
    )
    return Panel(
        Group(*lines),
        title=Text(path, style="bold"),
        subtitle=Text(f"{record.rules.game.value}: {rules}"),
        title_align="left",
        subtitle_align="left",
    )


def _count(k: int, noun: str) -> str:
    """``1 card``, ``2 cards``, ``0 cards``."""
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def position_json(result: Replay) -> str:
    """One line: exactly ``final_position()``."""
    return json.dumps(final_position(result), ensure_ascii=False)


def run(files: list[str], as_json: bool, out: Console) -> int:
    """Replay every file; print their positions in order. Returns the exit status."""
    results: list[tuple[str, Record, Replay]] = []
    for path in files:
        try:
            record, result = load_and_replay(path)
        except ReplayFailed as exc:
            print_error("slapjack replay", str(exc))
            return EXIT_INVALID
        results.append((path, record, result))
    for path, record, result in results:
        if as_json:
            out.file.write(position_json(result) + "\n")
        else:
            out.print(describe(path, record, result))
    out.file.flush()
    return 0


def register(app: typer.Typer) -> None:
    """Add ``slapjack replay`` to the CLI."""

    @app.command("replay")
    def replay_command(
        files: list[str] = typer.Argument(
            ..., metavar="FILE", help="Game records (slapjack-record/1 JSON); '-' reads stdin."
        ),
        as_json: bool = typer.Option(
            False, "--json", help="Print each final position as one JSON object per line."
        ),
        _version: VersionOption = False,
    ) -> None:
        """Check and replay game records; print each final position.

        An invalid record exits with status 2 and one message naming the file,
        the action and what is wrong; nothing is printed for the others.
        """
        status = run(files, as_json, Console())
        if status:
            raise typer.Exit(code=status)
