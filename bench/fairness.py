"""Benchmark of the fair referee (issue 5): does the faster hand win, whatever the network?

The command line of :mod:`slapjack.netlab.fairness` (the code lives in the package,
where the tests reach it too).

    python bench/fairness.py                      # everything, 1,000 races each
    python bench/fairness.py --scenarios home --cheats forger100 --races 300
"""

from __future__ import annotations

import sys

from slapjack.netlab.fairness import main

if __name__ == "__main__":
    sys.exit(main())
