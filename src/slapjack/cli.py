"""The ``slapjack`` command: serve, tui, simulate, replay, rules, cluster, version."""

from __future__ import annotations

import importlib

from slapjack.commands.common import App, VersionOption

app = App(
    name="slapjack",
    help="Slapjack and Irish Snap: web game, terminal game, bots, simulator and records.",
    epilog="Run 'slapjack COMMAND --help' for the options of a command.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root(_version: VersionOption = False) -> None:
    """Slapjack and Irish Snap: web game, terminal game, bots, simulator and records."""


# Each sub-command lives in its own module under slapjack.commands and
# registers itself on the app, in the order --help lists them.
for _name in ("serve", "tui", "simulate", "replay", "rules", "cluster"):
    importlib.import_module(f"slapjack.commands.{_name}").register(app)


@app.command()
def version(_version: VersionOption = False) -> None:
    """Print the version (as --version does)."""
    from slapjack import __version__

    print(f"slapjack {__version__}")


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
