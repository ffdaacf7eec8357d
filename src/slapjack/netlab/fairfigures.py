"""The figures of the fairness study (:mod:`slapjack.netlab.fairness`): a run's
summary statistics (who won which race, latencies, a cheat's advantage, the
Wilson interval) and how they are printed: the rows of the command line and
the Markdown table for docs/benchmarks.md."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from .fairplayers import Race, Run


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarize(run: Run) -> dict[str, Any]:
    races = [r for r in run.races.values() if r.done and not r.truncated and r.winner is not None]
    correct = {10: [0, 0], 20: [0, 0]}
    latencies: list[float] = []
    cheat_wins = 0
    advantages: list[float] = []
    for race in races:
        if len(race.true) < run.seats:
            continue
        order = sorted(race.true, key=race.true.__getitem__)
        gap = race.true[order[1]] - race.true[order[0]]
        for g, tally in correct.items():
            if gap >= g:
                tally[1] += 1
                tally[0] += race.winner == order[0]
        for seat, at in race.result_at.items():
            if seat in race.shown:
                latencies.append(at - race.shown[seat])
        c = race.cheat_seat
        if c is not None:
            cheat_wins += race.winner == c
            if c in race.bounded:
                honest = [
                    race.true[s] - race.bounded[s]
                    for s in race.bounded
                    if s != c and s in race.true
                ]
                if honest:
                    gain = race.true[c] - race.bounded[c]
                    advantages.append(gain - statistics.fmean(honest))
    n = len(races)
    truncated = sum(1 for r in run.races.values() if r.done and r.truncated)
    out: dict[str, Any] = {
        "scenario": run.scenario,
        "cheat": run.cheat.name if run.cheat else "none",
        "referee": run.referee,
        "races": n,
        "wins": {s: sum(r.winner == s for r in races) for s in range(run.seats)},
        "discarded": truncated,
        "correct_20": correct[20][0] / correct[20][1] if correct[20][1] else math.nan,
        "n_20": correct[20][1],
        "correct_10": correct[10][0] / correct[10][1] if correct[10][1] else math.nan,
        "n_10": correct[10][1],
        "latency_p50": pct(latencies, 0.5),
        "latency_p99": pct(latencies, 0.99),
    }
    if run.cheat is not None:
        out["cheat_win"] = cheat_wins / n if n else math.nan
        out["cheat_by_seat"] = cheat_by_seat(run, races)
        out["adv_mean"] = statistics.fmean(advantages) if advantages else math.nan
        out["adv_p99"] = pct(advantages, 0.99)
    return out


def cheat_by_seat(run: Run, races: Sequence[Race]) -> list[dict[str, Any]]:
    """Per seat the cheat played: its races, its share of wins, and (fair
    referees) after how many of its slaps it was first held, the median over
    its rooms (a room where it never was counts all its slaps)."""
    out = []
    for seat in range(run.seats):
        mine = [r for r in races if r.cheat_seat == seat]
        holds = [(first, slaps) for s, first, slaps, _ in run.holds if s == seat]
        out.append(
            {
                "seat": seat,
                "races": len(mine),
                "win": sum(r.winner == seat for r in mine) / len(mine) if mine else math.nan,
                "held_after": statistics.median(
                    slaps if first is None else first for first, slaps in holds
                )
                if holds
                else None,
                "never_held": sum(first is None for first, _ in holds),
                "reasons": sorted({why for s, _, _, why in run.holds if s == seat and why}),
            }
        )
    return out


def kernel_summary(run: Run, seen: dict[str, list[tuple[float, float, float | None]]]) -> list[Any]:
    """Per seat: the median SRTT and min RTT the server read, and the true
    mean and minimum round trips of the seat's network."""
    out = []
    for seat in range(run.seats):
        got = seen.get(run.net.client_addrs[seat], [])
        mins = [m for _, _, m in got if m is not None]
        out.append(
            {
                "seat": seat,
                "n": len(got),
                "srtt_p50": pct([r for r, _, _ in got], 0.5),
                "min_rtt_p50": pct(mins, 0.5),
                "true_rtt_mean": 2 * (run.base[seat] + run.jitter[seat]),
                "true_rtt_min": 2 * run.base[seat],
            }
        )
    return out


# ------------------------------------------------------------------ printing


def forwarder_line(r: dict[str, Any]) -> str:
    f = r.get("forwarder")
    if not f:
        return ""
    line = (
        f"  (tun forwarder: {f['packets']} packets, late p50 {f['late_p50_ms']:.2f} ms, "
        f"p99 {f['late_p99_ms']:.2f} ms, max {f['late_max_ms']:.1f} ms, dropped {f['dropped']})"
    )
    kernel = r.get("kernel")
    if kernel and any(k["n"] for k in kernel):

        def ms(x: float) -> str:
            return "-" if math.isnan(x) else f"{x:.0f}"

        line += (
            "\n  (server's TCP_INFO by seat, median SRTT / min RTT vs true mean / min RTT, ms: "
            + ", ".join(
                f"{ms(k['srtt_p50'])}/{ms(k['min_rtt_p50'])} vs "
                f"{k['true_rtt_mean']:.0f}/{k['true_rtt_min']:.0f}"
                for k in kernel
            )
            + ")"
        )
    return line


HEADER = (
    f"{'scenario':8} {'cheat':16} {'referee':9} {'races':>5} {'ok≥20ms':>8} {'ok≥10ms':>8} "
    f"{'p50 ms':>7} {'p99 ms':>7} {'cheat win':>9} {'adv mean':>8} {'adv p99':>8}"
)


def format_row(r: dict[str, Any]) -> str:
    def pc(x: float) -> str:
        return "-" if x is None or math.isnan(x) else f"{100 * x:.1f}%"

    def ms(x: float | None) -> str:
        return "-" if x is None or math.isnan(x) else f"{x:.0f}"

    return (
        f"{r['scenario']:8} {r['cheat']:16} {r['referee']:9} {r['races']:>5} "
        f"{pc(r['correct_20']):>8} {pc(r['correct_10']):>8} "
        f"{ms(r['latency_p50']):>7} {ms(r['latency_p99']):>7} "
        f"{pc(r.get('cheat_win', math.nan)):>9} {ms(r.get('adv_mean')):>8} {ms(r.get('adv_p99')):>8}"
    )


def cheat_line(r: dict[str, Any]) -> str:
    parts = []
    for c in r["cheat_by_seat"]:
        if not c["races"]:
            continue
        part = f"seat {c['seat']} {100 * c['win']:.1f}% of {c['races']}"
        if c["held_after"] is not None:
            part += f", held after {c['held_after']:.0f} slaps"
            if c["never_held"]:
                part += f" (never in {c['never_held']} rooms)"
        parts.append(part)
    low, high = wilson(r["cheat_win"], r["races"])
    return (
        f"  (cheat wins {100 * r['cheat_win']:.1f}%, 95% interval {100 * low:.1f}–{100 * high:.1f}%;"
        " by seat: " + "; ".join(parts) + ")"
    )


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share of ``n`` races (95 % by default)."""
    if n <= 0 or math.isnan(share):
        return math.nan, math.nan
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def markdown(results: Sequence[dict[str, Any]]) -> str:
    """The figures as a Markdown table (for docs/benchmarks.md)."""

    def pc(x: Any) -> str:
        return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f} %"

    def ms(x: Any) -> str:
        return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"

    lines = [
        "| scenario | cheat | referee | races | fastest wins, gap ≥ 20 ms | gap ≥ 10 ms "
        "| flip→result p50 / p99 (ms) | cheat wins | cheat advantage mean / p99 (ms) "
        "| loop lag p99 (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['scenario']} | {r['cheat']} | {r['referee']} | {r['races']} "
            f"| {pc(r['correct_20'])} | {pc(r['correct_10'])} "
            f"| {ms(r['latency_p50'])} / {ms(r['latency_p99'])} "
            f"| {pc(r.get('cheat_win'))} | {ms(r.get('adv_mean'))} / {ms(r.get('adv_p99'))} "
            f"| {ms(r.get('loop_lag_p99'))} |"
        )
    return "\n".join(lines)
