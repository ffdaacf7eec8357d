"""Run the real ``slapjack`` in a pseudo-terminal, as a person at a terminal would."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]")


def run_in_terminal(
    argv: list[str], *, columns: int = 80, rows: int = 24, timeout: float = 120.0
) -> str:
    """Run ``argv`` with a pseudo-terminal of ``columns`` × ``rows`` as its stdin,
    stdout and stderr; return everything it wrote, escape sequences removed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS=str(columns), LINES=str(rows))
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        else:
            raise AssertionError(f"{argv} did not finish in {timeout} s")
    finally:
        os.close(master)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - only on a hang
            proc.kill()
            proc.wait()
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    return text.replace("\r\n", "\n").replace("\r", "\n")
