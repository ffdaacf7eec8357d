"""Where friends can reach this server: the invite link's address.

``slapjack serve`` listens on loopback by default, where an invite link works
only on this machine; ``--lan`` listens on every interface and invites with
the machine's address on the local network; ``--public-url`` names the address
of a deployed server (behind a proxy, a domain). The room page shows the link
and its QR code, and says so when the link can only work here.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Final
from urllib.parse import urlsplit

from slapjack.core import SlapjackError

_PROBE: Final = ("192.0.2.1", 9)
"""A TEST-NET-1 address (RFC 5737): a UDP socket "connected" to it makes the
kernel pick the interface that would route there; no packet is ever sent."""


class PublicUrlError(SlapjackError):
    code = "bad_public_url"


def check_public_url(url: str) -> str:
    """``url`` without a trailing slash, or :class:`PublicUrlError` when it is
    not an ``http://`` or ``https://`` address with a host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PublicUrlError(
            f"a public URL is http://host[:port] or https://host[:port], got {url!r}"
        )
    if parts.query or parts.fragment:
        raise PublicUrlError(f"a public URL has no query or fragment, got {url!r}")
    return url.rstrip("/")


def lan_address() -> str | None:
    """This machine's IPv4 address on its local network (the interface of its
    default route), or ``None`` when it has none (no network, loopback only)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            address: str = probe.getsockname()[0]
    except OSError:
        address = ""
    if address and not ipaddress.ip_address(address).is_loopback and address != "0.0.0.0":
        return address
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return None
    for info in infos:
        candidate = str(info[4][0])
        if not ipaddress.ip_address(candidate).is_loopback:
            return candidate
    return None


def http_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def local_only(url: str) -> bool:
    """True when a link to ``url`` can only be opened on this machine."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen_addresses(host: str, port: int) -> list[str]:
    """Every address a server listening on ``host`` can be reached at, for
    ``slapjack serve`` to print: loopback and the LAN address for ``0.0.0.0``/``::``."""
    if host in ("0.0.0.0", "::", ""):
        urls = [http_url("127.0.0.1", port)]
        lan = lan_address()
        if lan is not None:
            urls.append(http_url(lan, port))
        return urls
    return [http_url(host, port)]
