"""What the served process's heap holds (issue 14): loaded into the ``slapjack
serve`` process that ``bench/load.py`` starts, by putting this folder on
``PYTHONPATH`` and naming an output file in ``SLAPJACK_HEAP_HIST``
(``bench/objects.py`` does both).

When load.py resets ``/api/metrics`` (its players connected and settled, the
measured seconds begin), it writes the objects the garbage collector tracks,
frozen ones included, counted by type, and the suspended coroutines and the
functions by qualified name, to that file as JSON. Any other process ignores it.
"""

from __future__ import annotations

import os
import sys

if "serve" in sys.argv and os.environ.get("SLAPJACK_HEAP_HIST"):
    import collections
    import gc
    import json
    import threading
    import time
    from typing import Any

    _OUT = os.environ["SLAPJACK_HEAP_HIST"]

    def _dump() -> None:
        gc.unfreeze()  # the frozen ones are part of the heap
        try:
            objs = gc.get_objects()
            types = collections.Counter(type(o).__name__ for o in objs)
            named = {
                kind: collections.Counter(
                    getattr(o, "__qualname__", "?") for o in objs if type(o).__name__ == kind
                )
                for kind in ("coroutine", "function")
            }
            data: dict[str, Any] = {
                "tracked": len(objs),
                "types": dict(types),
                "coroutines": dict(named["coroutine"]),
                "functions": dict(named["function"]),
            }
            del objs
        finally:
            gc.freeze()
        with open(_OUT, "w") as fh:
            json.dump(data, fh)

    def _hook() -> None:
        import slapjack.server.metrics as metrics

        reset = metrics.METRICS.reset
        done = [False]

        def dumping_reset() -> None:
            if not done[0]:
                done[0] = True
                _dump()
            reset()

        metrics.METRICS.reset = dumping_reset  # type: ignore[method-assign]

    def _wait_and_hook() -> None:
        while "slapjack.server.metrics" not in sys.modules:  # the server is starting
            time.sleep(0.05)
        time.sleep(0.5)  # its module has run by then
        _hook()

    threading.Thread(target=_wait_and_hook, daemon=True).start()
