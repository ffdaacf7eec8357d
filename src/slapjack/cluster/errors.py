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
    """A malformed argument: a room or channel name, a TTL, a message that is not JSON."""

    code = "bad_input"


class ClusterUnavailable(ClusterError):
    """Redis could not be reached or failed underneath."""

    code = "cluster_unavailable"


class LeaseLost(ClusterError):
    """This node no longer owns the room (expired, or taken over by another node)."""

    code = "lease_lost"
