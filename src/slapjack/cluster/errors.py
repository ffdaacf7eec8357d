"""Typed errors of the cluster layer."""

from __future__ import annotations


class ClusterError(Exception):
    """Base class of every error the cluster layer raises."""

    code: str = "cluster_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


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
