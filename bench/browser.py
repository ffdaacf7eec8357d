"""Browser benchmark: how fast the room page shows what a player did, with its
animations on, in Debian's Chromium at 4x CPU throttling.

    .venv/bin/python bench/browser.py [--rooms 4] [--flips 60] [--throttle 4] [--json]

It starts ``slapjack serve`` on a loopback port (SQLite in a temporary
directory, test hooks on), and plays ``--rooms`` games in one page each: you at
seat 0 against one beginner bot (bots flip fast), pressing Space on your turn
and J on every Jack 200 ms after it shows. CDP ``Emulation.setCPUThrottlingRate``
slows the page's CPU by ``--throttle``. Two figures, measured in the page:

* **keypress -> card painted**: from the Space keydown's ``timeStamp`` to the
  first paint of the card it turned up (a ``requestAnimationFrame`` after the
  update is drawn, then a task after that frame: the moment the page's
  reaction clock stamps the card as shown). Target: p95 <= 50 ms. It is split
  into the way there and back (keydown to the arrival of the update that
  shows the flip: the socket over loopback, the server's work, its write to
  the store) and the page's part (that update's arrival to the paint).
* **slap -> own result shown**: for every race you slapped in, from the
  arrival of the update that settles it (the WebSocket ``message`` event) to
  the frame that paints your result line, in frames (animation frames
  begun in between, counting the one that paints it) and in ms. Target: the
  frame right after the update arrives (<= 1 frame).

Prints a table (n, median, p95, max) and, with ``--json``, the raw figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

PROBE = r"""
(() => {
  // marks: the performance marks a trace needs (--trace only: they cost the
  // throttled page a little in the key handler and the paint).
  const B = (window.__bench = { flips: [], results: [], pending: null, arrive: [], marks: !!window.__benchMarks });
  // Every WebSocket message's arrival, before the page's own handler runs.
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (ev) => {
        if (typeof ev.data !== "string") return;
        if (ev.data.includes('"race_won"')) {
          // Count the animation frames that begin from here on, until my
          // result line is counted (then no more: a loop of frames running on
          // would hold back the next card's update, which waits for a frame
          // after a key press while anything is drawing).
          B.arrive.push(performance.now());
          const mark = B.arrive.length;
          B.ticks = 0;
          B.counting = mark;
          const loop = () => { if (B.counting === mark && B.ticks < 60) { B.ticks += 1; requestAnimationFrame(loop); } };
          requestAnimationFrame(loop);
        }
        if (B.pending && !B.pending.got && ev.data.includes('"flipped"')) {
          B.pending.got = performance.now();
          if (B.marks) performance.mark("sj-got");
        }
      });
    }
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.key === " ") {
      const t = document.getElementById("table");
      B.pending = { at: ev.timeStamp, flip: t ? Number(t.dataset.flip) : null };
      if (B.marks) performance.mark("sj-key", { startTime: ev.timeStamp });
    }
  }, true);
  // After the page has drawn an update (its message handler is done): the
  // table's data-flip or my result line changed. Works for any client version.
  const drawn = () => {
    const t = document.getElementById("table");
    const p = B.pending;
    // When the page painted that it is my turn (for --press paint).
    const stack = document.getElementById("my-stack");
    const turnFlip = t && stack && stack.classList.contains("turn") ? Number(t.dataset.flip) : null;
    if (turnFlip !== null && B.turnFlip !== turnFlip) {
      B.turnFlip = turnFlip;
      B.turnPainted = null;
      requestAnimationFrame(() => setTimeout(() => {
        if (B.turnFlip === turnFlip) B.turnPainted = performance.now();
      }, 0));
    }
    if (p && t && Number(t.dataset.flip) > p.flip) {
      B.pending = null;
      requestAnimationFrame(() => setTimeout(() => {
        const now = performance.now();
        if (B.marks) performance.mark("sj-painted");
        // "since": ms since the last race's result arrived (null: none yet), to
        // tell the flips just after a race (its sweep, burst and result) apart;
        // "n": the flip's number in this room's game (1: the first I made).
        const race = B.arrive.length ? p.at - B.arrive[B.arrive.length - 1] : null;
        B.flips.push({ total: now - p.at, server: (p.got ?? now) - p.at, page: now - (p.got ?? now), since: race, n: B.flips.length + 1 });
      }, 0));
    }
    const mine = document.getElementById("my-result");
    const arrived = B.arrive.length ? B.arrive[B.arrive.length - 1] : null;
    const text = mine ? mine.textContent : "";
    const result = /quickest|reaction|Too late/.test(text);
    if (arrived !== null && result && !B.counted?.has(arrived)) {
      (B.counted ||= new Set()).add(arrived);
      const counting = B.counting;
      // Frames begun since the update arrived, up to the one that paints the
      // result (the next one after now).
      const before = B.ticks;
      requestAnimationFrame(() => {
        const painted = performance.now();
        if (B.counting === counting) B.counting = null; // the frame counter stops
        setTimeout(() => B.results.push({ frames: before + 1, ms: painted - arrived, text }), 0);
      });
    }
  };
  new MutationObserver(drawn).observe(document, {
    subtree: true, attributes: true, childList: true,
    attributeFilter: ["data-flip", "class"],
  });
})();
"""


def start_server(data: Path, static: Path | None = None) -> tuple[subprocess.Popen[str], str]:
    """``slapjack serve``; with ``static``, serving that directory's client instead."""
    env = {**os.environ, "SLAPJACK_TEST_HOOKS": "1", "PYTHONUNBUFFERED": "1"}
    boot = "from slapjack.cli import main; main()"
    if static is not None:
        boot = (
            "import pathlib, slapjack.server.routes.pages as a; "
            f"a.STATIC_DIR = pathlib.Path({str(static)!r}); {boot}"
        )
    cmd = [
        sys.executable,
        "-c",
        boot,
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(data),
        "--log-level",
        "warning",
        "--no-rate-limits",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    assert proc.stdout is not None
    m = re.search(r"http://[\d.]+:\d+", proc.stdout.readline())
    if m is None:
        proc.kill()
        raise SystemExit("slapjack serve did not print its address")
    url = m.group(0)
    for _ in range(200):
        try:
            if httpx.get(url + "/api/rooms", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    return proc, url


def play_room(
    browser: Any,
    url: str,
    flips: int,
    throttle: float,
    muted: bool = False,
    trace: Path | None = None,
    press: str = "paint",
    seed: int = 0,
) -> dict[str, Any]:
    rng = random.Random(seed)
    code = httpx.post(
        url + "/api/test/rooms",
        json={
            "create": {"seats": 2, "bots": {"1": "beginner"}, "public": False},
            # The game starts after the production countdown (start_delay_ms's
            # default): the page has it to get ready, as a player's page has.
            "timing": {"bot_pace": 0.1, "turn_ms": 3000.0},
        },
        timeout=10,
    ).json()["code"]
    ctx = browser.new_context(base_url=url, viewport={"width": 1280, "height": 800})
    if trace is not None:
        ctx.add_init_script("window.__benchMarks = true")
    ctx.add_init_script(PROBE)
    if muted:
        ctx.add_init_script("localStorage.setItem('slapjack.muted', '1')")
    page = ctx.new_page()
    page.goto(f"/r/{code}")
    page.locator("body[data-ready='1']").wait_for(state="attached")
    page.locator("#join-name").fill("Bench")
    page.locator("#join-btn").click()
    page.locator("#table .seat").nth(1).wait_for()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    if trace is not None:
        browser.start_tracing(page=page, path=str(trace), categories=TRACE_CATEGORIES)
    state_js = """() => { const t = document.getElementById('table');
      const top = document.querySelector('#table .pile .card.top');
      return { flip: Number(t.dataset.flip), over: t.dataset.over === 'true',
               top: top ? top.dataset.card : null,
               mine: document.getElementById('my-stack').classList.contains('turn'),
               ago: __bench.turnPainted != null && __bench.turnFlip === Number(t.dataset.flip)
                 ? performance.now() - __bench.turnPainted : null }; }"""
    pressed: set[int] = set()
    slapped: set[int] = set()
    waits: dict[int, float] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        st = page.evaluate(state_js)
        if st["over"] or st["flip"] >= flips:
            break
        if (st["top"] or "").startswith("J") and st["flip"] not in slapped:
            slapped.add(st["flip"])
            page.wait_for_timeout(200)
            page.keyboard.press("j")
        elif st["mine"] and st["flip"] not in pressed:
            # "dom": the moment the page's DOM says it is my turn, before that
            # is painted (a player pressing ahead of the screen); "paint": a
            # person's delay after the frame that showed it (HUMAN_PRESS_MS).
            wait = waits.setdefault(st["flip"], rng.uniform(*HUMAN_PRESS_MS))
            if press == "dom" or (st["ago"] is not None and st["ago"] >= wait):
                pressed.add(st["flip"])
                page.keyboard.press("Space")
        page.wait_for_timeout(20)
    page.wait_for_timeout(500)
    if trace is not None:
        browser.stop_tracing()
    out: dict[str, Any] = page.evaluate("({flips: __bench.flips, results: __bench.results})")
    ctx.close()
    return out


# --press paint: a person presses Space this long (uniform, ms) after the
# frame that shows it is their turn (a choice reaction; docs/bots.md has the
# published figures: 300-500 ms for a choice, here on the quick side).
HUMAN_PRESS_MS = (200.0, 400.0)

TRACE_CATEGORIES = ["toplevel", "devtools.timeline", "blink.user_timing", "v8"]


def task_kind(names: set[str]) -> str:
    """What a main-thread task did, from the names of the events inside it."""
    if names & {"ProxyMain::BeginMainFrame", "FireAnimationFrame", "PrePaint", "Paint", "Layerize"}:
        return "frames"  # a rendering update: rAF callbacks, style, layout, paint
    if names & {"event:keydown", "event:keyup", "event:keypress", "event:pointerdown"}:
        return "input"
    if "Receive mojo message" in names:
        return "messages"  # the WebSocket's frames (updates, pings) and their handler
    if "TimerFire" in names:
        return "timers"
    if names & {"MinorGC", "MajorGC", "V8.GC_SCAVENGER", "V8.GC_MARK_COMPACTOR"}:
        return "gc"
    return "other"


def trace_breakdown(path: Path) -> list[dict[str, float]]:
    """Per flip (the probe's sj-key ... sj-painted marks): the page main
    thread's CPU time (the trace's thread time, which CPU throttling slows as
    it slows the thread) in the tasks between keypress and paint, by kind, and
    how long the page waited in that window (wall time minus its own CPU)."""
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    threads = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    marks = sorted(
        (e["ts"], e["name"])
        for e in events
        if e.get("name", "").startswith("sj-") and e.get("ph") in ("R", "I", "n", "b", "i")
    )
    if not marks:
        return []
    pid = next(e["pid"] for e in events if e.get("name") == "sj-key")
    main = next(k for k, v in threads.items() if v == "CrRendererMain" and k[0] == pid)
    xs = sorted(
        (e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"),
        key=lambda e: (e["ts"], -e.get("dur", 0)),
    )
    tasks: list[tuple[float, float, float, str]] = []  # start, end, cpu ms, kind
    i = 0
    while i < len(xs):
        top = xs[i]
        end = top["ts"] + top.get("dur", 0)
        names = {top["name"]}
        j = i + 1
        while j < len(xs) and xs[j]["ts"] < end:
            names.add(xs[j]["name"])
            if xs[j]["name"] == "EventDispatch":
                names.add(f"event:{xs[j].get('args', {}).get('data', {}).get('type')}")
            j += 1
        if top["name"] in ("ThreadControllerImpl::RunTask", "RunTask"):
            tasks.append(
                (top["ts"], end, top.get("tdur", top.get("dur", 0)) / 1000, task_kind(names))
            )
        i = j
    flips = []
    key = got = None
    for ts, name in marks:
        if name == "sj-key":
            key, got = ts, None
        elif name == "sj-got" and key is not None:
            got = ts
        elif name == "sj-painted" and key is not None:
            row: dict[str, float] = {"wall": (ts - key) / 1000}
            row["to update"] = ((got or ts) - key) / 1000
            for start, end, cpu, kind in tasks:
                if end > key and start < ts:
                    share = (min(end, ts) - max(start, key)) / max(1.0, end - start)
                    row[kind] = row.get(kind, 0.0) + cpu * share
                    if kind == "frames":
                        row["frame tasks"] = row.get("frame tasks", 0.0) + 1
            row["cpu"] = sum(v for k, v in row.items() if k in KINDS)
            row["waiting"] = row["wall"] - row["cpu"]
            flips.append(row)
            key = got = None
    return flips


KINDS = ("input", "messages", "frames", "timers", "gc", "other")


CAPTURE = r"""
(() => {
  window.__msgs = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__ws = this;
      this.addEventListener("message", (ev) => {
        if (typeof ev.data === "string" && ev.data.includes('"flipped"')) window.__msgs.push(ev.data);
      });
    }
  };
})();
"""
# The last two flips' updates, fed to the page's socket handler in turn, each
# followed by its frame (requestAnimationFrame, then a task after the paint).
REPLAY = r"""async (n) => {
  const [a, b] = window.__msgs.slice(-2);
  for (let i = 0; i < n; i++) {
    window.__ws.dispatchEvent(new MessageEvent("message", { data: i % 2 ? b : a }));
    await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  }
}"""


def replay_page(browser: Any, url: str, throttle: float, css: str = "") -> tuple[Any, Any]:
    """A 4-seat room (me and three beginner bots) waiting for my flip, with the
    last two flips' updates captured for replaying; CPU throttling on."""
    code = httpx.post(
        url + "/api/test/rooms",
        json={
            "create": {
                "seats": 4,
                "bots": {str(s): "beginner" for s in (1, 2, 3)},
                "public": False,
            },
            "timing": {"start_delay_ms": 200.0, "bot_pace": 0.1, "turn_ms": 60000.0},
        },
        timeout=10,
    ).json()["code"]
    ctx = browser.new_context(base_url=url, viewport={"width": 1280, "height": 800})
    ctx.add_init_script(CAPTURE)
    ctx.add_init_script("localStorage.setItem('slapjack.muted', '1')")
    page = ctx.new_page()
    page.goto(f"/r/{code}")
    if css:
        page.add_style_tag(content=css)
    page.locator("body[data-ready='1']").wait_for(state="attached")
    page.locator("#join-name").fill("Bench")
    page.locator("#join-btn").click()
    page.locator("#table .seat").nth(3).wait_for()
    mine = "document.getElementById('my-stack').classList.contains('turn')"
    pressed: set[int] = set()
    flip = "Number(document.getElementById('table').dataset.flip)"
    deadline = time.monotonic() + 60
    while len(pressed) < 6 and time.monotonic() < deadline:
        at = page.evaluate(flip)
        if page.evaluate(mine) and at not in pressed:
            pressed.add(at)
            page.keyboard.press("Space")
        page.wait_for_timeout(50)
    page.wait_for_function(f"{mine} && window.__msgs.length >= 2", timeout=60_000)
    cdp = ctx.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    page.evaluate(REPLAY, 4)  # warm up
    return ctx, page


PHASES = {
    "script": "FunctionCall",
    "style": "UpdateLayoutTree",
    "layout": "Layout",
    "paint": "Paint",
}


def update_cost(
    browser: Any, url: str, throttle: float, n: int, trace: Path, css: str = ""
) -> dict[str, float]:
    """The page's main-thread CPU per update (thread time in the trace, ms),
    by phase: the last two flips' updates of a 4-seat game replayed ``n``
    times into the page (the same DOM work as live updates; no server, no
    network, so a busy machine changes the figures little)."""
    ctx, page = replay_page(browser, url, throttle, css)
    browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline"])
    page.evaluate(REPLAY, n)
    browser.stop_tracing()
    ctx.close()
    events = json.loads(trace.read_text())["traceEvents"]
    out = {
        name: sum(e.get("tdur", 0) for e in events if e.get("name") == ev and e.get("ph") == "X")
        / 1000
        / n
        for name, ev in PHASES.items()
    }
    out["total"] = sum(out.values())
    return out


def update_profile(
    browser: Any, url: str, throttle: float, n: int, css: str = "", top: int = 25
) -> list[tuple[float, str]]:
    """Where the replayed updates' script time goes: V8's sampling profiler
    (CDP ``Profiler``) over ``n`` replayed updates; per function, its self
    time per update (ms, throttled), the largest first."""
    ctx, page = replay_page(browser, url, throttle, css)
    cdp = ctx.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    cdp.send("Profiler.start")
    page.evaluate(REPLAY, n)
    profile = cdp.send("Profiler.stop")["profile"]
    ctx.close()
    nodes = {node["id"]: node for node in profile["nodes"]}
    self_us: dict[str, float] = {}
    for node_id, dt in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node_id]["callFrame"]
        where = frame["url"].rsplit("/", 1)[-1]
        name = f"{frame['functionName'] or '(anonymous)'} {where}:{frame['lineNumber'] + 1}"
        self_us[name] = self_us.get(name, 0.0) + dt
    rows = sorted(((us / 1000 / n, name) for name, us in self_us.items()), reverse=True)
    return [r for r in rows if not r[1].startswith(("(idle)", "(program)"))][:top]


def update_invalidations(
    browser: Any, url: str, throttle: float, n: int, trace: Path, css: str = ""
) -> dict[str, list[tuple[float, str]]]:
    """What each replayed update dirties, from a trace with Blink's
    invalidation tracking: per update, how many elements were restyled, the
    style, layout and paint invalidations by element and reason, the layout
    objects laid out and the paint events."""
    ctx, page = replay_page(browser, url, throttle, css)
    cats = [
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        "disabled-by-default-devtools.timeline.invalidationTracking",
    ]
    browser.start_tracing(page=page, path=str(trace), categories=cats)
    page.evaluate(REPLAY, n)
    browser.stop_tracing()
    ctx.close()
    events = json.loads(trace.read_text())["traceEvents"]
    counts: dict[str, dict[str, float]] = {}

    def bump(kind: str, what: str, by: float = 1.0) -> None:
        counts.setdefault(kind, {})[what] = counts.setdefault(kind, {}).get(what, 0.0) + by

    for e in events:
        name = e.get("name", "")
        data = (e.get("args") or {}).get("data") or {}
        if name.endswith("InvalidationTracking"):
            node = data.get("nodeName") or data.get("nodeId") or "?"
            reason = data.get("reason") or "?"
            extra = data.get("changedClass") or data.get("changedAttribute") or ""
            bump(name.replace("InvalidationTracking", ""), f"{node} {reason} {extra}".strip())
        elif name == "UpdateLayoutTree" and e.get("ph") in ("X", "E"):
            count = (e.get("args") or {}).get("elementCount")
            if count is not None:
                bump("restyled", "elements", float(count))
        elif name == "Layout" and e.get("ph") in ("X", "B"):
            begin = (e.get("args") or {}).get("beginData") or {}
            if "dirtyObjects" in begin:
                bump("layout", "dirty objects", float(begin["dirtyObjects"]))
                bump("layout", "total objects", float(begin.get("totalObjects", 0)))
                bump("layout", "passes", 1)
        elif name == "Paint" and e.get("ph") == "X":
            bump("paint", f"layer {data.get('layerId')} node {data.get('nodeId')}")
    return {
        kind: sorted(((v / n, k) for k, v in rows.items()), reverse=True)[:20]
        for kind, rows in counts.items()
    }


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rooms", type=int, default=4)
    ap.add_argument("--flips", type=int, default=60)
    ap.add_argument("--throttle", type=float, default=4.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--muted", action="store_true", help="with the page's sound switched off")
    ap.add_argument(
        "--press",
        choices=("paint", "dom"),
        default="paint",
        help="when to press Space on my turn: 'paint' (default) 200-400 ms after the frame "
        "that shows it, as a person would; 'dom' the moment the DOM says so, before it is "
        "painted (ahead of the screen: what this benchmark did before)",
    )
    ap.add_argument(
        "--trace",
        metavar="FILE",
        type=Path,
        help="record a Chromium performance trace of the first room to FILE and print where "
        "the page's main thread spent its CPU time between each keypress and the card's paint",
    )
    ap.add_argument(
        "--client",
        metavar="REV",
        help="serve the client (src/slapjack/web/static) of this git revision instead",
    )
    ap.add_argument(
        "--css",
        default="",
        help="with --replay: a style sheet added to the replayed page (to try what a change costs)",
    )
    ap.add_argument(
        "--replay",
        type=int,
        default=0,
        metavar="N",
        help="also: the page's CPU per update, by phase, over N updates replayed into it",
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="with --replay: also V8's CPU profile of the replayed updates (self time per function)",
    )
    ap.add_argument(
        "--why",
        action="store_true",
        help="with --replay: also what each replayed update invalidates (style, layout, paint)",
    )
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        static = None
        if args.client:
            static = Path(tmp) / "client"
            static.mkdir()
            prefix = "src/slapjack/web/static/"
            archive = subprocess.run(
                ["git", "archive", args.client, prefix], capture_output=True, check=True
            ).stdout
            subprocess.run(
                ["tar", "-x", "--strip-components=4", "-C", str(static)], input=archive, check=True
            )
        proc, url = start_server(Path(tmp), static)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
                flips: list[dict[str, float]] = []
                results: list[dict[str, Any]] = []
                for n in range(args.rooms):
                    trace = args.trace if n == 0 else None
                    got = play_room(
                        browser, url, args.flips, args.throttle, args.muted, trace, args.press, n
                    )
                    flips += got["flips"]
                    results += got["results"]
                cost = (
                    update_cost(
                        browser, url, args.throttle, args.replay, Path(tmp) / "r.json", args.css
                    )
                    if args.replay
                    else None
                )
                profile = (
                    update_profile(browser, url, args.throttle, args.replay, args.css)
                    if args.replay and args.profile
                    else []
                )
                why = (
                    update_invalidations(
                        browser, url, args.throttle, args.replay, Path(tmp) / "w.json", args.css
                    )
                    if args.replay and args.why
                    else {}
                )
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    frames = [float(r["frames"]) for r in results]
    ms = [float(r["ms"]) for r in results]
    client = f"client of {args.client}" if args.client else "this client"
    client += ", muted" if args.muted else ""
    print(
        f"Chromium, CPU throttling {args.throttle:g}x, {args.rooms} rooms, animations on, {client}, "
        f"press on {args.press}"
    )
    print(f"{'figure':34} {'n':>4} {'median':>8} {'p95':>8} {'max':>8}")
    rows = [
        ("keypress -> card painted (ms)", [f["total"] for f in flips]),
        ("  of which: keypress -> update in", [f["server"] for f in flips]),
        ("  of which: update in -> painted", [f["page"] for f in flips]),
        ("slap -> own result (frames)", frames),
        ("slap -> own result (ms)", ms),
    ]
    for name, vals in rows:
        if not vals:
            print(f"{name:34} {0:>4} {'-':>8} {'-':>8} {'-':>8}")
            continue
        print(
            f"{name:34} {len(vals):>4} {statistics.median(vals):>8.1f} "
            f"{pct(vals, 0.95):>8.1f} {max(vals):>8.1f}"
        )
    if cost is not None:
        print(
            f"\nper update, replayed x{args.replay} (main-thread CPU ms): "
            + ", ".join(f"{k} {v:.1f}" for k, v in cost.items())
        )
    if profile:
        print(
            f"\nscript per replayed update, self time by function (ms, throttled {args.throttle:g}x)"
        )
        for ms_per, name in profile:
            print(f"{ms_per:8.2f}  {name}")
    for kind, found in why.items():
        print(f"\n{kind}, per replayed update:")
        for per, what in found:
            print(f"{per:8.2f}  {what}")
    breakdown = trace_breakdown(args.trace) if args.trace else []
    if breakdown:
        print(
            f"\ntrace of room 1 ({len(breakdown)} flips): keypress -> card painted, "
            "the page's main thread (CPU ms, throttled)"
        )
        print(f"{'part':34} {'n':>4} {'median':>8} {'p95':>8} {'max':>8}")
        for part in ("wall", "to update", "cpu", *KINDS, "waiting", "frame tasks"):
            vals = [f.get(part, 0.0) for f in breakdown]
            print(
                f"{part:34} {len(vals):>4} {statistics.median(vals):>8.1f} "
                f"{pct(vals, 0.95):>8.1f} {max(vals):>8.1f}"
            )
    if args.json:
        print(json.dumps({"flips_ms": flips, "results": results, "trace": breakdown}))


if __name__ == "__main__":
    main()
