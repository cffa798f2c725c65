"""The client's address, read one way for the sign-in lock-out (django-axes) and the rate limits
(django-ratelimit): both settings name `client_address`.

Behind the deployment's reverse proxy (deploy/nginx.conf) every connection comes from the proxy, which
names the client in X-Real-IP. That header is believed only on a connection from one of TRUSTED_PROXIES
(addresses or networks, DJANGO_TRUSTED_PROXIES): anyone else could write any address into it, and so
dodge the limits or lock a real user out. X-Forwarded-For is never read: a client can start it with
whatever it likes and nginx only appends to it.
"""

import ipaddress
from functools import lru_cache

from django.conf import settings


@lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in trusted)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def is_trusted_proxy(address: str) -> bool:
    peer = _address(address)
    return peer is not None and any(peer in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_address(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    if is_trusted_proxy(remote):
        forwarded = _address(request.META.get("HTTP_X_REAL_IP", ""))
        if forwarded is not None:
            return str(forwarded)
    return remote
