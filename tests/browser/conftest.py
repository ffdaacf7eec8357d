"""The real server (``slapjack serve`` in a subprocess) and Debian's Chromium via Playwright.

Under ``CI=true`` a missing Chromium is a failure, never a skip. Screenshots go
to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from slapjack.bots.factory import make_bot
from slapjack.core import Rules
from slapjack.sim.play import play_game
from slapjack.store import SqliteStore
from slapjack.store.factory import DEFAULT_FILE

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FULL_DECK = [r + s for r in RANKS for s in "CDHS"]

# Room timers for stacked-deck rooms: quick start, short races.
FAST_TIMING = {
    "start_delay_ms": 200.0,
    "jack_timeout_ms": 1200.0,
    "irish_timeout_ms": 1200.0,
    "deadlock_ms": 100.0,
    "call_grace_ms": 150.0,
}


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[str]
    log: Path

    def api(self, method: str, path: str, **kw: Any) -> Any:
        res = httpx.request(method, self.url + path, timeout=10, **kw)
        res.raise_for_status()
        return res.json()

    def hook_room(
        self,
        create: dict[str, Any],
        *,
        deck: list[str] | None = None,
        timing: dict[str, float] | None = None,
    ) -> str:
        """A room made through the server's test hook (a chosen deck and timers)."""
        body: dict[str, Any] = {"create": create, "timing": {**FAST_TIMING, **(timing or {})}}
        if deck is not None:
            body["deck"] = deck
        code: str = self.api("POST", "/api/test/rooms", json=body)["code"]
        return code


def stacked_deck(front: list[str]) -> list[str]:
    """A full deck whose first cards are ``front`` (dealt round the table from seat 0)."""
    rest = [c for c in FULL_DECK if c not in front]
    return [*front, *rest]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``slapjack serve`` on a free loopback port, SQLite in a temp dir, test hooks on."""
    with serve_process(tmp_path_factory.mktemp("browser-data")) as live:
        yield live


K = TypeVar("K")


def bot_game(names: list[str], preset: str = "classic") -> dict[str, Any]:
    """A whole game of bots with ``names`` (casual and pro, one shuffled deck),
    as its record (``Record.to_dict()``), for a replay to show."""
    rules = Rules.from_options({"preset": preset})
    deck = list(range(52))
    random.Random(3).shuffle(deck)
    levels = ["casual", "casual", "pro", "pro"] * 3
    bots = [make_bot(levels[s], s) for s in range(len(names))]
    result = play_game(rules, bots, deck, keep_record=True, names=names)
    assert result.record is not None
    return result.record.to_dict()


def store_games(data: Path, records: Mapping[K, dict[str, Any]]) -> dict[K, int]:
    """``records`` finished into the history of the SQLite store in ``data``
    (the one ``serve_process(data)`` serves), their game ids by key. In a
    thread of its own: the browser's sync API may run a loop in this one."""

    async def store() -> dict[K, int]:
        db = await SqliteStore.open(data / DEFAULT_FILE)
        try:
            return {key: await db.finish_game(None, record) for key, record in records.items()}
        finally:
            await db.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, store()).result()


@contextlib.contextmanager
def serve_process(data: Path, port: int = 0) -> Iterator[Server]:
    """``slapjack serve`` on loopback ``port`` (0: a free one), SQLite in ``data``,
    test hooks on; terminated at the end (unless the test killed it)."""
    log = data / "serve.log"
    env = {**os.environ, "SLAPJACK_TEST_HOOKS": "1", "PYTHONUNBUFFERED": "1"}
    cmd = [
        sys.executable,
        "-c",
        "from slapjack.cli import main; main()",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--data-dir",
        str(data),
        "--log-level",
        "warning",
        "--no-rate-limits",  # every page of the session comes from 127.0.0.1
    ]
    with open(log, "a") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            m = re.search(r"http://[\d.]+:\d+", line)
            if m is None:
                raise RuntimeError(f"slapjack serve did not print its address: {line!r}")
            url = m.group(0)
            deadline = time.monotonic() + 20
            while True:
                try:
                    if httpx.get(url + "/api/rooms", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("slapjack serve did not answer: " + log.read_text())
                time.sleep(0.1)
            yield Server(url, proc, log)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module. Not for the whole session: Playwright's sync
    API keeps an event loop running in this thread while it is open, and the
    asyncio tests that run after the browser tests need the thread free."""
    if not CHROMIUM.exists():
        message = (
            f"{CHROMIUM} is missing (apt-get install chromium; scripts/test-prereqs.sh does it)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@dataclass
class Pages:
    """Makes browser contexts and pages; collects every page's script errors."""

    browser: Any
    base: str
    contexts: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)

    def allow(self, text: str) -> None:
        """An expected console error (e.g. the 404 of an unknown room's API call)."""
        self.allowed.append(text)

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(a in e for a in self.allowed)]

    def context(self, **kw: Any) -> Any:
        kw.setdefault("viewport", {"width": 1280, "height": 900})
        kw.setdefault("locale", "en-GB")
        ctx = self.browser.new_context(base_url=self.base, **kw)
        ctx.set_default_timeout(15_000)
        self.contexts.append(ctx)
        return ctx

    def screen(self, width: int, height: int, **kw: Any) -> Any:
        """A context the size of a screen: narrower than 1000 px, a phone's
        (touch, mobile, twice the pixels)."""
        phone = width < 1000
        return self.context(
            viewport={"width": width, "height": height},
            device_scale_factor=2 if phone else 1,
            is_mobile=phone,
            has_touch=phone,
            **kw,
        )

    def page(self, ctx: Any | None = None, **kw: Any) -> Any:
        page = (ctx or self.context(**kw)).new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))
        page.on(
            "console",
            lambda msg: (
                msg.type == "error" and self.errors.append(f"{page.url}: console: {msg.text}")
            ),
        )
        return page


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Pages]:
    made = Pages(browser, server.url)
    yield made
    for ctx in made.contexts:
        ctx.close()
    assert not made.unexpected_errors(), made.unexpected_errors()


@pytest.fixture
def shot() -> Callable[[Any, str], Path]:
    """Save a screenshot to test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page: Any, name: str, full_page: bool = False) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


def open_page(page: Any, path: str) -> Any:
    """Go to ``path`` and wait until the page's script has wired it up."""
    page.goto(path)
    page.locator("body[data-ready='1']").wait_for(state="attached")
    return page


def table_state(page: Any) -> dict[str, Any]:
    """What a room page shows now: flip id, turn, my turn, the top card, game over."""
    state: dict[str, Any] = page.evaluate(
        """() => {
          const table = document.getElementById('table');
          const top = document.querySelector('#table .pile .card.top');
          const stack = document.getElementById('my-stack');
          return {
            flip: table && table.dataset.flip !== undefined ? Number(table.dataset.flip) : null,
            turn: table ? table.dataset.turn : null,
            over: table ? table.dataset.over === 'true' : false,
            top: top && top.dataset.card ? top.dataset.card : null,
            myTurn: !!stack && stack.classList.contains('turn'),
            endShown: !document.getElementById('end').hidden,
          };
        }"""
    )
    return state


def wait_for(predicate: Callable[[], bool], timeout: float = 15.0, step: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(step)


def slap_when_a_card_shows(page: Any, slap: Callable[[], None], tries: int = 4) -> None:
    """Slap (``slap()``) once a card is on the pile, until the page says it slapped.

    Between seeing the card and the input the pile may be taken (a bot won a
    Jack); then the page sends nothing, and we try again on the next card. The
    page counts the slaps it sent in ``#my-result[data-slaps]``.
    """

    def sent() -> int:
        return int(page.locator("#my-result").get_attribute("data-slaps") or 0)

    for _ in range(tries):
        wait_for(lambda: table_state(page)["top"] is not None, timeout=20)
        before = sent()
        slap()
        try:
            wait_for(lambda before=before: sent() > before, 2)
            return
        except AssertionError:
            continue
    raise AssertionError("the page never slapped")


SLAP_JACKS_IN_PAGE = """([delay, tap]) => {
  window.__jackSlaps = 0;
  const slapped = new Set();
  new MutationObserver(() => {
    const table = document.getElementById('table');
    const top = document.querySelector('#table .pile .card.top');
    if (!table || !top || !(top.dataset.card || '').startsWith('J')) return;
    const flip = table.dataset.flip;
    if (slapped.has(flip)) return;
    slapped.add(flip);
    setTimeout(() => {
      const now = document.querySelector('#table .pile .card.top');
      if (!now || now.dataset.card !== top.dataset.card || table.dataset.flip !== flip) return;
      if (tap) {
        document.getElementById('slap-btn').dispatchEvent(new PointerEvent('pointerdown',
          {bubbles: true, cancelable: true, pointerType: 'touch', isPrimary: true}));
      } else {
        document.dispatchEvent(new KeyboardEvent('keydown', {key: 'j', code: 'KeyJ', bubbles: true}));
      }
      window.__jackSlaps += 1;
    }, delay);
  }).observe(document, {subtree: true, childList: true, attributes: true});
}"""


def slap_jacks_in_page(page: Any, delay_ms: float = 260.0, *, tap: bool = False) -> None:
    """From now on the page slaps each Jack ``delay_ms`` after it shows (a key
    press, or with ``tap`` a touch on Slap), if it is still the top card then.
    Keep ``delay_ms`` a person's (not under ~150 ms): a faster slap is judged a
    false start.

    Done by the page's own timer: a test that sees the Jack through Playwright
    and answers with a key press is late by its round trips, which on a loaded
    machine made the person lose every Jack, or slap the card after it (a wrong
    slap). ``window.__jackSlaps`` counts the slaps."""
    page.evaluate(SLAP_JACKS_IN_PAGE, [delay_ms, tap])
