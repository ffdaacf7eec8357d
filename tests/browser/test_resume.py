"""A game rebuilt after the server died (``kill -9``, then started again on the
same data) counts down in the browser before it goes on: the page reconnects
by itself, says when the game goes on, and the cards move again after that."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

import pytest

from .conftest import ARTIFACTS, Pages, serve_process, table_state, wait_for
from .test_game_feel import join

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_a_restarted_game_counts_down_before_it_goes_on(browser: Any, tmp_path: Path) -> None:
    port = free_port()
    with serve_process(tmp_path, port) as first:
        pages = Pages(browser, first.url)
        pages.allow("WebSocket")  # the console's note of the dropped connection
        pages.allow("Failed to load resource")
        code = first.hook_room(
            {"seats": 2, "bots": {"1": "casual"}, "public": False},
            timing={"resume_delay_ms": 3000.0, "bot_pace": 0.5, "turn_ms": 1500.0},
        )
        page = pages.page()
        join(page, code, "Rita")
        wait_for(lambda: (table_state(page)["flip"] or 0) >= 2, timeout=30)
        first.proc.kill()  # kill -9: nothing is flushed, nothing said goodbye
        first.proc.wait(10)
    flips = table_state(page)["flip"]
    with serve_process(tmp_path, port):
        status = page.locator("#status")
        status.wait_for(state="visible", timeout=30_000)
        wait_for(lambda: "goes on in" in (status.text_content() or ""), timeout=30)
        said = status.text_content() or ""
        assert re.search(r"goes on in [1-3] s", said), said
        page.screenshot(path=str(ARTIFACTS / "resume-countdown.png"))
        # A slap or a flip in the countdown says to wait (it did nothing).
        for key in ("j", "Space"):
            page.evaluate("document.getElementById('my-result').textContent = ''")
            page.keyboard.press(key)
            if "goes on in" in (status.text_content() or ""):
                said = page.locator("#my-result").text_content() or ""
                assert "Wait for the countdown" in said, (key, said)
        before = table_state(page)["flip"]
        assert before == flips  # nothing moved while the server was away
        # held: no card is turned during the countdown
        page.wait_for_timeout(1000)
        if "goes on in" in (status.text_content() or ""):
            assert table_state(page)["flip"] == before
        wait_for(lambda: (table_state(page)["flip"] or 0) > before, timeout=30)
        wait_for(lambda: "goes on in" not in (status.text_content() or ""), timeout=10)
        assert not pages.unexpected_errors(), pages.unexpected_errors()
        for ctx in pages.contexts:
            ctx.close()
