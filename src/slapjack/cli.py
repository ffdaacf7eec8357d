"""The ``slapjack`` command: play, serve, tui, simulate, replay, rules."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="slapjack",
    help="Slapjack and Irish Snap: web game, terminal game, bots, simulator and records.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Slapjack and Irish Snap."""


@app.command()
def version() -> None:
    """Print the version."""
    from slapjack import __version__

    typer.echo(__version__)


# Each sub-command lives in its own module under slapjack.commands and
# registers itself on the app; the CLI imports them here.
for _name in ("replay", "simulate", "rules", "serve", "tui"):
    importlib.import_module(f"slapjack.commands.{_name}").register(app)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
