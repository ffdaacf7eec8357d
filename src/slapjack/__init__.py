"""Slapjack and Irish Snap: a pure rules engine with a fair referee around it.

>>> from slapjack import Rules, Table, Flip
>>> table = Table.new(Rules.from_options({"preset": "classic"}), ["Anna", "Ben"], seed=7)
>>> events = table.apply(Flip(0, t=0))
"""

from __future__ import annotations

from .core import *  # noqa: F403
from .core import __all__ as _core_all

__version__ = "0.1.0"
__all__ = [*_core_all, "__version__"]
