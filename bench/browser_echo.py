"""Why an animation delays the card you flip: a WebSocket echo in Debian's
Chromium, timed from a key press, with and without something moving.

    .venv/bin/python bench/browser_echo.py [--n 40] [--throttle 1] [--modes plain,key,...]

A page on a loopback echo server (Starlette on uvicorn, as ``slapjack serve``)
sends 80 bytes and times the echo's ``message`` event. Each mode is a fresh
page:

* ``plain``: the send from a script (no key press), nothing moving.
* ``key``: the send from the page's own ``keydown`` handler (Playwright presses
  Space), nothing moving.
* ``anim``: a script's send while an opacity animation runs (a breathing glow).
* ``key+anim``: a key press's send while that animation runs.
* ``key+raf``: a key press's send while a ``requestAnimationFrame`` loop runs.
* ``key+steps``: a key press's send while a bar shrinks in ``steps()`` (250 ms).
* ``key+delay``: a key press's send while an animation waits out its delay.
* ``key+paint``: a key press's send, nothing moving, timed to the paint of
  what the echo changes (the box's colour and text: the least a page can
  show), as ``bench/browser.py`` times a card: keydown ``timeStamp`` to a
  ``requestAnimationFrame`` after the message, then a task after that frame.
  The floor of ``browser.py``'s keypress -> card painted on this machine.

What it shows (docs/benchmarks.md, "Nothing moves while you flip"): after a
key press Chromium draws its next frame before it hands the page a socket
message, so while anything moves smoothly the echo waits for a frame; an
animation in steps, or one still in its delay, does not.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
MODES = ("plain", "key", "anim", "key+anim", "key+raf", "key+steps", "key+delay", "key+paint")

# What runs in the page while it measures, by mode.
MOVING = {
    "anim": "d.animate([{opacity: 1}, {opacity: .35}], {duration: 1400, iterations: Infinity, direction: 'alternate'});",
    "raf": "const f = () => { d.style.opacity = String(.9 + Math.random() * .1); requestAnimationFrame(f); }; requestAnimationFrame(f);",
    "steps": "d.animate([{transform: 'scaleX(1)'}, {transform: 'scaleX(0)'}], {duration: 3000, iterations: Infinity, easing: 'steps(12, start)'});",
    "delay": "d.animate([{opacity: 1}, {opacity: .35}], {duration: 1400, delay: 60000, iterations: Infinity});",
}

SETUP = """([moving, paint]) => {
  const d = document.createElement('div');
  d.style.cssText = 'position:absolute;left:300px;top:200px;width:120px;height:168px;background:#2e7d32;transform-origin:left';
  document.body.append(d);
  if (moving) new Function('d', moving)(d);
  window.__out = [];
  return new Promise((ready) => {
    const ws = (window.__ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws'));
    ws.onopen = ready;
    let n = 0;
    ws.onmessage = () => {
      if (!paint) { window.__out.push(performance.now() - window.__t); return; }
      n += 1;
      d.textContent = String(n);
      d.style.background = n % 2 ? '#c62828' : '#2e7d32';
      const t0 = window.__t;
      requestAnimationFrame(() => setTimeout(() => window.__out.push(performance.now() - t0), 0));
    };
    document.addEventListener('keydown', (e) => {
      if (e.key === ' ') { window.__t = paint ? e.timeStamp : performance.now(); ws.send('x'.repeat(80)); }
    });
  });
}"""


def start_echo() -> str:
    import socket

    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def home(request: Any) -> HTMLResponse:
        return HTMLResponse("<!doctype html><html><body><p>echo</p></body></html>")

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            pass

    app = Starlette(routes=[Route("/", home), WebSocketRoute("/ws", echo)])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical", loop="uvloop")
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}/"


def measure(browser: Any, url: str, mode: str, n: int, throttle: float) -> list[float]:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(url)
        if throttle != 1:
            cdp = page.context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        moving = next((js for key, js in MOVING.items() if key in mode.split("+")), "")
        page.evaluate(SETUP, [moving, "paint" in mode.split("+")])
        page.wait_for_timeout(300)
        for _ in range(n):
            if mode.startswith("key"):
                page.keyboard.press("Space")
            else:
                page.evaluate(
                    "() => { window.__t = performance.now(); window.__ws.send('x'.repeat(80)); }"
                )
            page.wait_for_timeout(150)
        out: list[float] = page.evaluate("window.__out")
        return out
    finally:
        page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=40, help="echoes per mode")
    ap.add_argument("--throttle", type=float, default=1.0, help="CDP CPU throttling rate")
    ap.add_argument("--modes", default=",".join(MODES))
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            raise SystemExit(f"unknown mode {m!r}: one of {', '.join(MODES)}")
    from playwright.sync_api import sync_playwright

    url = start_echo()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        print(f"Chromium, WebSocket echo over loopback, CPU throttling {args.throttle:g}x")
        print(f"{'mode':12} {'n':>4} {'median':>8} {'p95':>8} {'max':>8}  (ms)")
        for mode in modes:
            got = sorted(measure(browser, url, mode, args.n, args.throttle))
            if not got:
                print(f"{mode:12} {0:>4}")
                continue
            p95 = got[min(len(got) - 1, int(len(got) * 0.95))]
            print(
                f"{mode:12} {len(got):>4} {statistics.median(got):>8.2f} {p95:>8.2f} {got[-1]:>8.2f}"
            )
        browser.close()


if __name__ == "__main__":
    main()
