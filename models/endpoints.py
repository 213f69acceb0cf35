"""Which endpoints a model client may send a key to: never a link-local or cloud-metadata address unless the
user says so (`--allow-private-endpoint`, or ACCESSBENCH_ALLOW_PRIVATE_ENDPOINT=1 in the environment of the
process that makes the calls, a worker's included).

A cloud instance's metadata service (169.254.169.254, fd00:ec2::254, metadata.google.internal, Alibaba's
100.100.100.200) answers any local process with the instance's own credentials; an `--api-base` that names
it turns a judge into a way to read them, and sends the provider key there too. Host names are resolved and
every address they resolve to is checked (a name may point at 169.254.169.254). Loopback and private-network
servers (llama.cpp, vLLM, Ollama on 127.0.0.1 or a LAN) stay allowed: they are what `--api-base` is for.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from urllib.parse import urlsplit

ALLOW_ENV = "ACCESSBENCH_ALLOW_PRIVATE_ENDPOINT"
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data",
                            "instance-data.ec2.internal", "metadata.azure.com", "metadata.tencentyun.com"})
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "192.0.0.192"))


class EndpointRefused(ValueError):
    """An endpoint that is link-local or a cloud metadata service; raised before any call is made."""


def allowed_by_environment() -> bool:
    return os.environ.get(ALLOW_ENV, "").strip().lower() in ("1", "true", "yes")


def _refused_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_link_local or address in METADATA_ADDRESSES


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.split("%")[0])]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []  # unresolvable here: the call fails on its own, and sends nothing
    found = []
    for info in infos:
        try:
            found.append(ipaddress.ip_address(str(info[4][0]).split("%")[0]))
        except ValueError:
            continue
    return found


def why_refused(api_base: str | None) -> str | None:
    """Why `api_base` is refused (a link-local or metadata address), or None when it may be called."""
    if not api_base:
        return None
    try:
        host = (urlsplit(api_base if "//" in api_base else f"http://{api_base}").hostname or "").rstrip(".").lower()
    except ValueError:
        return None
    if not host:
        return None
    if host in METADATA_HOSTS:
        return f"{host} is a cloud metadata service"
    for address in _addresses(host):
        if _refused_address(address):
            what = "a cloud metadata address" if address in METADATA_ADDRESSES else "a link-local address"
            return f"{host} is {what} ({address})" if str(address) != host else f"{host} is {what}"
    return None


def check_endpoint(api_base: str | None) -> None:
    """Raise EndpointRefused for a link-local or cloud-metadata endpoint unless allowed."""
    reason = why_refused(api_base)
    if reason and not allowed_by_environment():
        raise EndpointRefused(f"--api-base refused: {reason}; a provider key or the machine's own cloud credentials "
                              "would be exposed there. If you mean it: --allow-private-endpoint (or "
                              f"{ALLOW_ENV}=1)")
