"""Where ``web_fetch`` may connect: the public internet, and the hosts the user allows.

The model chooses the URL, and a page chooses where it redirects, so either could point
the fetch at what only this machine can reach: a cloud metadata service (169.254.169.254),
the user's local servers, the office network. So every address is checked after DNS
resolution (a name can resolve to 127.0.0.1, and ``0x7f.1`` is 127.0.0.1 to the resolver),
at every hop, and the connection goes to the very address checked, never to a second
lookup of the name (which a rebinding DNS server would answer differently). Only the user
widens it (``NEOCODE_WEB_FETCH_ALLOW`` or ``web_fetch_allow`` in their ``config.toml``):
host names, addresses or networks (``127.0.0.1,docs.internal,10.0.0.0/8``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
SCHEMES = ("http", "https")
DNS_TIMEOUT = 10.0


class Refused(Exception):
    """A URL or address web_fetch will not go to; the message says why and what to do."""


@dataclass(frozen=True)
class AllowList:
    """Hosts (by name, lower case) and networks the user lets web_fetch reach although
    they are not public."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AllowList:
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for entry in entries:
            entry = entry.strip().lower().strip("[]")
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(entry.rstrip("."))
        return cls(frozenset(hosts), tuple(networks))

    def allows(self, host: str, address: IPAddress) -> bool:
        return host.rstrip(".") in self.hosts or any(address in net for net in self.networks)


@dataclass(frozen=True)
class Target:
    """One hop: the URL as asked for, and the checked address to connect to."""

    url: httpx.URL
    address: IPAddress

    @property
    def host(self) -> str:
        return self.url.raw_host.decode("ascii").lower()

    def connect_url(self) -> httpx.URL:
        """The URL with the checked address in place of the name: no second lookup."""
        return self.url.copy_with(host=str(self.address))

    def headers(self) -> dict[str, str]:
        """The ``Host`` the server expects, as the name (with a port that is not the default)."""
        port, host = self.url.port, self.host
        host = f"[{host}]" if ":" in host else host  # an IPv6 literal
        return {"Host": host if port is None else f"{host}:{port}"}

    def extensions(self) -> dict[str, str]:
        """TLS is checked against the name, as if the name had been dialled."""
        return {"sni_hostname": self.host} if self.url.scheme == "https" else {}


def parse_url(text: str) -> httpx.URL:
    """``text`` as an http(s) URL with a host, or ``Refused``."""
    try:
        url = httpx.URL(text.strip())
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise Refused(f"not a valid URL: {exc}") from None
    if url.scheme not in SCHEMES:
        raise Refused(
            f"only http and https URLs can be fetched, not {url.scheme or 'a URL without a scheme'}"
            + ("" if url.scheme else " (write https://…)")
        )
    if not url.raw_host:
        raise Refused("the URL has no host")
    if url.userinfo:
        raise Refused("the URL carries a user name or password; web_fetch sends no credentials")
    return url


async def check(url: httpx.URL, allow: AllowList) -> Target:
    """Resolve the URL's host and check every address it has: one that is not public
    refuses the hop (a name may list a public and a private address), unless allowed."""
    host = url.raw_host.decode("ascii").lower()
    addresses = await _resolve(host, url.port or (443 if url.scheme == "https" else 80))
    for address in addresses:
        if not _public(address) and not allow.allows(host, address):
            raise Refused(
                f"{host} is {_what(address)} ({address}): web_fetch reaches only public "
                "addresses unless you allow the host (NEOCODE_WEB_FETCH_ALLOW or "
                "web_fetch_allow in your config.toml)"
            )
    return Target(url, addresses[0])


async def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [_unmapped(ipaddress.ip_address(host))]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(DNS_TIMEOUT):
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except TimeoutError:
        raise Refused(f"looking up {host} took more than {DNS_TIMEOUT:g}s") from None
    except (OSError, UnicodeError) as exc:
        raise Refused(f"{host} could not be found: {getattr(exc, 'strerror', None) or exc}") from None
    found: list[IPAddress] = []
    for info in infos:
        address = _unmapped(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]))
        if address not in found:
            found.append(address)
    if not found:
        raise Refused(f"{host} has no address")
    return found


def _unmapped(address: IPAddress) -> IPAddress:
    """``::ffff:127.0.0.1`` is 127.0.0.1 to the network stack, so it is checked as that."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _public(address: IPAddress) -> bool:
    return address.is_global and not address.is_multicast


def _what(address: IPAddress) -> str:
    if address.is_loopback:
        return "this machine (a loopback address)"
    if address.is_link_local:
        return "a link-local address (where cloud metadata services live)"
    if address.is_private:
        return "a private address"
    return "not a public address"
