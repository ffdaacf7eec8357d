"""The browser client: static HTML, CSS and plain ES modules, served as they are.

No build step: the server mounts :data:`STATIC_DIR` at ``/static`` and serves the
pages named in :data:`PAGES` for their routes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
"""The directory the server mounts at ``/static``."""

PAGES: Final[dict[str, str]] = {
    "/": "index.html",
    "/r/{code}": "room.html",
    "/party": "party.html",
    "/history": "history.html",
    "/replay/{id}": "replay.html",
    "/rules": "rules.html",
}
"""Route → page file in :data:`STATIC_DIR`."""

__all__ = ["PAGES", "STATIC_DIR"]
