"""A laboratory for the referee: networks to study it in, and the studies.

Used by the benchmarks in ``bench/`` (their command lines) and by the tests
(``tests/referee/``); nothing in the game itself imports it.

- :mod:`.model` — a synthetic network of explicit time: legs of ``base + Exp(jitter)`` ms
- :mod:`.tunnet` — real delays below TCP, on TUN devices in network namespaces of its own
  (its forwarder process: :mod:`.forwarder`)
- :mod:`.fairness` — real server, real WebSocket clients: does the faster hand win?
  (``bench/fairness.py``; its players :mod:`.fairplayers`, servers :mod:`.fairserve`,
  figures :mod:`.fairfigures`)
- :mod:`.referee_model` — the fair referee in the model network, many rooms at once
  (``bench/referee_model.py``)
- :mod:`.referee_cost` — what the fair referee costs per pong and per race
  (``bench/referee_cost.py``)
"""
