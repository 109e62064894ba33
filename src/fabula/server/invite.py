"""Where players open a room: the join link and its QR code must work on a phone, which
``127.0.0.1`` never does. This module decides which address to show, and says plainly when no
phone can reach the server at all."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Literal

#: Why phones cannot open the link: the server listens on this computer only, or it listens on
#: every interface but this computer has no network address to give them.
Problem = Literal["loopback_only", "no_network"]
WILDCARDS = ("0.0.0.0", "::", "")


def lan_address() -> str | None:
    """This machine's address on its local network, for the URL to show phones."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET: no packet is sent for a UDP connect
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if is_loopback(address) else address


def is_loopback(host: str | None) -> bool:
    if not host or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host.endswith(".localhost")


@dataclass(frozen=True, slots=True)
class Invite:
    """The base URL to give players, and what stops phones from opening it (None: nothing)."""

    base: str
    problem: Problem | None

    def to_json(self, code: str) -> dict[str, object]:
        return {"url": f"{self.base}/join/{code}", "reachable": self.problem is None, "problem": self.problem}


def invite_for(public_url: str, listening_on: str, scheme: str, host: str | None, port: int | None) -> Invite:
    """The invite for a page opened at ``scheme://host:port``, on a server configured with
    ``public_url`` and listening on ``listening_on``.

    >>> invite_for("", "192.168.1.5", "http", "192.168.1.5", 8000)
    Invite(base='http://192.168.1.5:8000', problem=None)
    >>> invite_for("", "127.0.0.1", "http", "127.0.0.1", 8000).problem
    'loopback_only'
    >>> invite_for("https://fabula.example/", "127.0.0.1", "http", "127.0.0.1", 8000).base
    'https://fabula.example'
    """
    if public_url:
        return Invite(public_url.rstrip("/"), None)
    shown = f":{port}" if port is not None else ""
    if host and not is_loopback(host):  # this page came over the network: so can the phones
        return Invite(f"{scheme}://{host}{shown}", None)
    local = f"{scheme}://{host or '127.0.0.1'}{shown}"
    if listening_on not in WILDCARDS and is_loopback(listening_on):
        return Invite(local, "loopback_only")
    lan = lan_address() if listening_on in WILDCARDS else listening_on
    if lan is None:
        return Invite(local, "no_network")
    return Invite(f"{scheme}://{lan}{shown}", None)
