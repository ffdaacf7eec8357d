"""`slapjack serve` (being built)."""

import typer


def register(app: typer.Typer) -> None:
    """Nothing registered yet."""
