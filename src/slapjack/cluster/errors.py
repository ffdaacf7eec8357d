"""Typed errors of the cluster layer."""

from __future__ import annotations

from slapjack.core.errors import SlapjackError


class ClusterError(SlapjackError):
    """Base class of every error the cluster layer raises. (A :class:`~slapjack.core.SlapjackError`:
    one hierarchy, a stable ``code`` and a ``message`` for every error.)"""

    code = "cluster_error"


class BadClusterInput(ClusterError, ValueError):
    """A malformed argument: a node id, a URL, a room code, an interval."""

    code = "bad_input"


class ClusterUnavailable(ClusterError):
    """Redis could not be reached or failed underneath. Live rooms play on;
    what needs Redis (placing a new room, finding a room's node) waits:
    ``await node.wait_available()`` and try again."""

    code = "cluster_unavailable"


class NoNodeAvailable(ClusterError):
    """No live node that is not draining can take a new room."""

    code = "no_node_available"


class CodesExhausted(ClusterError):
    """Every room code tried was taken (the code space is nearly full)."""

    code = "codes_exhausted"
