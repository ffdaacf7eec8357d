"""Invite links that work: the address they use (``--lan``, ``--public-url``),
what ``slapjack serve`` prints, and the room saying when a link works here only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from slapjack.cli import app
from slapjack.server.invite import (
    PublicUrlError,
    check_public_url,
    lan_address,
    listen_addresses,
    local_only,
)

from .conftest import start_server


def test_public_urls_are_checked() -> None:
    assert check_public_url("https://slap.example.org/") == "https://slap.example.org"
    assert check_public_url("http://10.0.0.7:8000") == "http://10.0.0.7:8000"
    for bad in ("ftp://x", "slap.example.org", "http://", "https://a.org/?x=1", "https://a#b"):
        with pytest.raises(PublicUrlError):
            check_public_url(bad)


def test_which_links_work_on_this_machine_only() -> None:
    assert local_only("http://127.0.0.1:8000/r/ABC")
    assert local_only("http://localhost:8000/r/ABC")
    assert local_only("http://[::1]:8000/r/ABC")
    assert not local_only("http://192.168.1.20:8000/r/ABC")
    assert not local_only("https://slap.example.org/r/ABC")


def test_every_interface_lists_loopback_and_the_lan() -> None:
    assert listen_addresses("127.0.0.1", 8000) == ["http://127.0.0.1:8000"]
    urls = listen_addresses("0.0.0.0", 8000)
    assert urls[0] == "http://127.0.0.1:8000"
    lan = lan_address()
    assert urls[1:] == ([f"http://{lan}:8000"] if lan else [])


async def test_a_loopback_server_says_its_links_work_here_only(tmp_path: Path) -> None:
    server = start_server(None, tmp_path)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            code = (await http.post("/api/rooms", json={})).json()["code"]
            invite = (await http.get(f"/api/rooms/{code}/invite")).json()
            assert invite == {"url": f"{server.url}/r/{code}", "local_only": True}
            assert (await http.get("/api/rooms/ZZZZZZ/invite")).status_code == 404
    finally:
        server.stop()


async def test_a_public_url_is_what_invites_and_qr_codes_use(tmp_path: Path) -> None:
    server = start_server(None, tmp_path, public_url="https://slap.example.org/")
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            code = (await http.post("/api/rooms", json={})).json()["code"]
            invite = (await http.get(f"/api/rooms/{code}/invite")).json()
            assert invite == {"url": f"https://slap.example.org/r/{code}", "local_only": False}
            qr = await http.get(f"/api/rooms/{code}/qr.svg")
            assert qr.status_code == 200 and "<path" in qr.text
    finally:
        server.stop()


async def test_play_now_at_a_chosen_level(tmp_path: Path) -> None:
    server = start_server(None, tmp_path)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            joined = await http.post("/api/play-now", json={"name": "Ana", "level": "matched"})
            info = (await http.get(f"/api/rooms/{joined.json()['code']}")).json()
            assert [s["bot"] for s in info["seats"]] == [None, "matched", "matched", "matched"]
            bad = await http.post("/api/play-now", json={"name": "Ana", "level": "godlike"})
            assert bad.status_code == 422
    finally:
        server.stop()


def test_a_bad_public_url_is_refused_before_anything_starts(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["serve", "--public-url", "ftp://x", "--port", "0", "--data-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "--public-url: a public URL is http://" in result.output
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(
    lan_address() is None and os.environ.get("CI") != "true", reason="this machine has no LAN"
)
def test_serve_lan_prints_every_address_and_invites_with_the_lan_one(tmp_path: Path) -> None:
    lan = lan_address()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "slapjack.cli", "serve", "--lan", "--port", "0"),
            *("--data-dir", str(tmp_path), "--log-level", "warning"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().strip() for _ in range(3)]
        first = lines[0].rsplit(" ", 1)[-1].rstrip("/")
        port = first.rsplit(":", 1)[-1]
        assert first == f"http://127.0.0.1:{port}"
        assert lines[1] == f"also at http://{lan}:{port}/"
        assert lines[2] == f"Invite links use http://{lan}:{port}/"
        deadline = time.monotonic() + 20
        while True:  # only loopback traffic: the LAN address is asked of the server, not dialled
            try:
                code = httpx.post(f"{first}/api/rooms", json={}, timeout=1).json()["code"]
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        invite = httpx.get(f"{first}/api/rooms/{code}/invite").json()
        assert invite == {"url": f"http://{lan}:{port}/r/{code}", "local_only": False}
    finally:
        proc.terminate()
        proc.wait(10)
