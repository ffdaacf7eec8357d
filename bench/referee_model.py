"""The fair referee in a model network: fast figures for tuning its tests.

The command line of :mod:`slapjack.netlab.referee_model` (the code lives in the package,
where the tests reach it too).

    .venv/bin/python bench/referee_model.py [--scenarios home,mixed] [--forge 30]
"""

from __future__ import annotations

import sys

from slapjack.netlab.referee_model import main

if __name__ == "__main__":
    sys.exit(main())
