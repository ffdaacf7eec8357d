"""Where the server's CPU goes, per flip (issue 14): a py-spy profile, sorted.

Reads the collapsed stacks of ``py-spy record -f raw`` taken from a
``slapjack serve`` process under ``bench/load.py`` and puts every sample in
one part of the server: the innermost frame that belongs to a known part
decides (so the JSON encoder called by the fair referee's frames counts as
encode, the engine called by the live table as engine). With the server's
CPU seconds and the flips the generator sent in the same window it prints a
per-flip table (µs per flip, share of the server's CPU).

    .venv/bin/python bench/load.py --players 6000 --seconds 30 --pin --procs 2 --profile prof.raw
    .venv/bin/python bench/flipcost.py prof.raw --cpu-s 14.2 --flips 9800 --top 40

``bench/load.py --profile FILE`` samples the server over its measured window
and prints these tables itself (this module's :func:`tables`); run this file
to read a profile again, with ``--top``. ``--cpu-s``: the server's CPU seconds
while py-spy sampled; ``--flips``: flips sent in that time (``load.py
--profile`` prints both).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Iterable, Iterator

PARTS: list[tuple[str, str]] = [
    # (part, regex on "function (file)"), the first that matches wins per frame
    ("store append", r"slapjack/store/|aiosqlite|sqlite3"),
    ("referee", r"server/fair|server/referee\.py|live/referee\.py|server/clocksync"),
    (
        "encode (views, JSON)",
        r"protocol/encode\.py|server/frames\.py|pydantic_core|core/view|observe|to_dict",
    ),
    (
        "decode + validate (client frames)",
        r"validate_json|protocol/to_server|json/decoder|answer_id|refusal",
    ),
    ("engine", r"slapjack/core/"),
    ("live driver", r"slapjack/live/"),
    ("bots, seating", r"slapjack/bots/"),
    (
        "room, inputs, actor",
        r"server/room\.py|server/inputs\.py|server/actor\.py|server/seats\.py|server/roomstore",
    ),
    ("socket: conn queue + writer", r"server/connection\.py"),
    ("socket: serve_socket, pinger", r"server/app\.py|server/sockets|server/ws"),
    (
        "WebSocket layer (uvicorn, websockets, wsproto, starlette)",
        r"uvicorn/|websockets/|wsproto/|starlette/|h11/|picows",
    ),
    ("metrics", r"server/metrics"),
    ("event loop, tasks, timers (asyncio, uvloop)", r"asyncio/|uvloop|selectors"),
    ("gc", r"\bgc\b|collect"),
]
COMPILED = [(name, re.compile(rx)) for name, rx in PARTS]
FLOWS: list[tuple[str, str]] = [
    # (flow, regex on the whole stack), the first that matches wins
    ("ping sent (pinger, referee.on_ping_sent)", r"_pinger|Pinger|on_ping_sent|ping_sent"),
    (
        "pong handled in the room (referee.on_pong, clock sync)",
        r"on_pong|ClockSync|on_transport_rtt",
    ),
    ("store (write-ahead appends, SQLite thread)", r"slapjack/store/|aiosqlite"),
    (
        "game input handled (engine, live table, referee.judge, room)",
        r"server/inputs\.py|Room\.handle",
    ),
    (
        "updates built and sent (views, encode, socket writes)",
        r"server/frames\.py|Room\._broadcast|Room\.after|Room\.flush|Actor\.flush",
    ),
    ("room timers (turn, race deadlines)", r"Room\.wake|Actor\.set_timer"),
    ("frames written (Conn.writer, WebSocket send)", r"Conn\.writer"),
    (
        "frames read (WebSocket receive, validate, rate limits)",
        r"serve_socket|data_received|run_asgi",
    ),
    ("actor queue and loop", r"Actor\.run|asyncio/|uvloop"),
]
FLOW_RX = [(name, re.compile(rx)) for name, rx in FLOWS]


def flow_of(stack: str) -> str:
    for name, rx in FLOW_RX:
        if rx.search(stack):
            return name
    return "other"


def part_of(stack: str) -> str:
    frames = stack.split(";")
    for frame in reversed(frames):  # innermost first
        for name, rx in COMPILED:
            if rx.search(frame):
                return name
    return "other"


def samples(lines: Iterable[str]) -> Iterator[tuple[str, int]]:
    """``(stack, count)`` of each ``py-spy record -f raw`` line (others skipped)."""
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if count.isdigit():
            yield stack, int(count)


def tables(
    lines: Iterable[str], cpu_s: float | None = None, flips: float | None = None, top: int = 0
) -> str:
    """The per-part and per-flow tables (Markdown) of ``py-spy record -f raw``
    lines; with the server's CPU seconds and the flips of the same window,
    each row's µs per flip; with ``top``, the heaviest leaf functions."""
    parts: Counter[str] = Counter()
    flows: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    total = 0
    for stack, n in samples(lines):
        total += n
        parts[part_of(stack)] += n
        flows[flow_of(stack)] += n
        leaves[stack.split(";")[-1]] += n
    if not total:
        return "no samples"
    per_flip = 1e6 * cpu_s / flips / total if cpu_s and flips else None
    out = ["| part | share of server CPU | µs per flip |", "|---|---|---|"]
    for name, n in parts.most_common():
        cost = f"{n * per_flip:.0f}" if per_flip else "-"
        out.append(f"| {name} | {100.0 * n / total:.1f} % | {cost} |")
    if per_flip:
        out.append(f"| **all** | 100 % | **{total * per_flip:.0f}** |")
    out += ["", "| flow | share of server CPU | µs per flip |", "|---|---|---|"]
    for name, n in flows.most_common():
        cost = f"{n * per_flip:.0f}" if per_flip else "-"
        out.append(f"| {name} | {100.0 * n / total:.1f} % | {cost} |")
    out += ["", f"{total} samples"]
    out += [f"{100.0 * n / total:5.1f} %  {leaf}" for leaf, n in leaves.most_common(top)]
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("raw", help="py-spy record -f raw output")
    p.add_argument("--cpu-s", type=float, default=None, help="server CPU seconds in the window")
    p.add_argument("--flips", type=float, default=None, help="flips in the window")
    p.add_argument("--top", type=int, default=0, help="also print the N heaviest leaf functions")
    args = p.parse_args()
    with open(args.raw) as fh:
        print(tables(fh, args.cpu_s, args.flips, args.top))


if __name__ == "__main__":
    main()
