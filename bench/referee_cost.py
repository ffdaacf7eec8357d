"""What the fair referee costs the server per pong and per race.

The command line of :mod:`slapjack.netlab.referee_cost` (the code lives in the package,
where the tests reach it too).

    .venv/bin/python bench/referee_cost.py [--pongs 20000] [--races 2000]
"""

from __future__ import annotations

import sys

from slapjack.netlab.referee_cost import main

if __name__ == "__main__":
    sys.exit(main())
