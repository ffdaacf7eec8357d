"""``slapjack serve``: refuses bad options with a clear message."""

from __future__ import annotations

import socket
from pathlib import Path

from typer.testing import CliRunner

from slapjack.cli import app


def test_unknown_referee_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["serve", "--referee", "coin", "--port", "0", "--data-dir", str(tmp_path)]
    )
    assert result.exit_code != 0
    assert "--referee must be one of fair, arrival" in result.output


def test_a_busy_port_is_named(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(
            app, ["serve", "--port", str(port), "--data-dir", str(tmp_path)]
        )
    assert result.exit_code != 0
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
