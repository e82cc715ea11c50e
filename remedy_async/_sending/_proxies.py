"""Which proxy, if any, a request goes through: pure decisions, made once per origin.

A client's proxy comes from its `proxy=` setting, or (with `trust_env=True`) from exactly these
environment variables: `HTTPS_PROXY` for https URLs, `HTTP_PROXY` for http URLs (each also in
lower case, which wins; upper-case `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set, as in a
CGI script, where a request header could have set it), and `NO_PROXY` (hosts that bypass any
proxy: `*`, names matching themselves and their subdomains, `host:port`, IP addresses and CIDR
ranges). Nothing else is read: not `~/.netrc`, not the system's proxy settings, not
`ALL_PROXY`. Proxy credentials come from the proxy URL's user information or the `proxy_auth`
setting and go only to the proxy, in `Proxy-Authorization`; the API's credential never does.
"""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote

from attrs import field, frozen
from multidict import CIMultiDict
from yarl import URL

from remedy_async._errors import ProxyError
from remedy_async._redact import described_url
from remedy_async._wire._http import Request

PROXY_SCHEMES = frozenset({"http", "https"})


@frozen
class Proxy:
    """A forward proxy: its URL without credentials, and the header that authenticates to it."""

    url: URL
    authorization: str | None = field(default=None, repr=False)
    """`Basic ...` for `Proxy-Authorization`, or None."""

    @property
    def shown(self) -> str:
        """The proxy as messages show it (never its credentials)."""
        return str(self.url)


def proxy_from(value: str | URL, auth: tuple[str, str] | None = None) -> Proxy:
    """The Proxy a setting names; ValueError (never showing a password) when it names none.

    Credentials come from `auth` (user, password) or the URL's user information, not both.
    A URL without a scheme is taken as http (`proxy:3128`, as curl does).
    """
    text = str(value).strip()
    if "://" not in text:
        text = f"http://{text}"
    try:
        url = URL(text)
        host = url.host
    except (ValueError, TypeError, UnicodeError):
        raise ValueError("proxy is not a usable URL") from None
    bare = url.with_user(None) if url.user is not None or url.password is not None else url
    if url.scheme not in PROXY_SCHEMES or not host:
        raise ValueError(f"proxy must be an http:// or https:// URL with a host, got {_safe(bare)}")
    if url.path not in ("", "/") or url.query_string or url.fragment:
        raise ValueError(f"proxy must be just scheme://host:port, got {_safe(bare)}")
    if url.user is not None and auth is not None:
        raise ValueError("proxy credentials given twice: in the proxy URL and in proxy_auth")
    if url.user is not None:
        auth = (unquote(url.raw_user or ""), unquote(url.raw_password or ""))
    return Proxy(URL.build(scheme=url.scheme, host=host, port=url.explicit_port), _basic(auth))


def _safe(url: URL) -> str:
    """A proxy URL as a message shows it: scheme and host (`described_url`), never the path or
    query where a secret may be."""
    return described_url(url.with_user(None)) if url.host else repr(url.scheme + "://")


def _basic(auth: tuple[str, str] | None) -> str | None:
    if auth is None:
        return None
    user, password = auth
    if not isinstance(user, str) or not isinstance(password, str):
        raise ValueError("proxy_auth must be a (user, password) pair of strings")
    if ":" in user or any(char in user + password for char in "\r\n\0"):
        raise ValueError("a proxy user name cannot hold ':' and neither part a line break or NUL")
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def _variable(environ: Mapping[str, str], name: str) -> str:
    lower = environ.get(name.lower(), "").strip()
    if lower:
        return lower
    if name == "HTTP_PROXY" and "REQUEST_METHOD" in environ:
        return ""
    return environ.get(name, "").strip()


class ProxyRoutes:
    """Which proxy each origin's requests take (None: straight to the service)."""

    def __init__(
        self,
        *,
        proxy: Proxy | None = None,
        http: Proxy | None = None,
        https: Proxy | None = None,
        no_proxy: str = "",
    ) -> None:
        self._by_scheme = {"http": proxy or http, "https": proxy or https}
        self._bypass = tuple(
            entry.strip().lower() for entry in no_proxy.split(",") if entry.strip()
        )
        self._chosen: dict[tuple[str, str, int | None], Proxy | None] = {}

    def __repr__(self) -> str:
        shown = {scheme: None if p is None else p.shown for scheme, p in self._by_scheme.items()}
        return f"<ProxyRoutes {shown} no_proxy={','.join(self._bypass)!r}>"

    @classmethod
    def from_settings(
        cls,
        proxy: str | URL | None,
        auth: tuple[str, str] | None,
        trust_env: bool,
        environ: Mapping[str, str],
    ) -> ProxyRoutes | None:
        """The routes a client's settings give; None when no request would use a proxy."""
        explicit = None if proxy is None else proxy_from(proxy, auth)
        if explicit is None and auth is not None:
            raise ValueError("proxy_auth was given without a proxy")
        if not trust_env:
            return None if explicit is None else cls(proxy=explicit)
        found = {name: _variable(environ, name) for name in ("HTTP_PROXY", "HTTPS_PROXY")}
        http, https = (
            proxy_from(found[name]) if found[name] else None
            for name in ("HTTP_PROXY", "HTTPS_PROXY")
        )
        if explicit is None and http is None and https is None:
            return None
        return cls(proxy=explicit, http=http, https=https, no_proxy=_variable(environ, "NO_PROXY"))

    def for_url(self, url: URL) -> Proxy | None:
        """The proxy a request to `url` goes through, or None (decided once per origin)."""
        key = (url.scheme, url.host or "", url.port)
        try:
            return self._chosen[key]
        except KeyError:
            pass
        chosen = self._by_scheme.get(url.scheme)
        if chosen is not None and self.bypasses(url.host or "", url.port):
            chosen = None
        self._chosen[key] = chosen
        return chosen

    def bypasses(self, host: str, port: int | None) -> bool:
        """Whether NO_PROXY sends requests to this host (and port) straight to it."""
        host = host.strip("[]").rstrip(".").lower()
        for entry in self._bypass:
            if entry == "*":
                return True
            name, wanted = _host_and_port(entry)
            if wanted is not None and wanted != port:
                continue
            if _matches(host, name):
                return True
        return False


def _host_and_port(entry: str) -> tuple[str, int | None]:
    """A NO_PROXY entry's host and optional port (`host:80`, `[::1]:80`, `::1`, `10.0.0.0/8`)."""
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    if entry.count(":") == 1:
        host, _, port = entry.partition(":")
        if port.isdigit():
            return host, int(port)
    return entry, None


def _matches(host: str, entry: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        try:
            return address in ipaddress.ip_network(entry, strict=False)
        except ValueError:
            return False
    name = entry.lstrip("*").lstrip(".").rstrip(".")
    return bool(name) and (host == name or host.endswith("." + name))


NO_PROXY: Mapping[str, Any] = MappingProxyType({})
PROXY_AUTHENTICATION_REQUIRED = 407


def through(
    proxy: Proxy, request: Request, own_headers: CIMultiDict[str] | None
) -> tuple[CIMultiDict[str] | None, Mapping[str, Any]]:
    """The request's own headers and aiohttp's further arguments, to go through a proxy.

    An https request tunnels (CONNECT): the proxy's credentials go on the CONNECT request only
    (`proxy_headers`) and the proxy sees nothing else in clear. An http request goes to the
    proxy whole (absolute-form), so its credentials go in that request's own headers.
    """
    if proxy.authorization is None:
        return own_headers, {"proxy": proxy.url}
    if request.url.scheme == "https":
        credentials = {"Proxy-Authorization": proxy.authorization}
        return own_headers, {"proxy": proxy.url, "proxy_headers": credentials}
    headers = CIMultiDict(own_headers or {})
    headers["Proxy-Authorization"] = proxy.authorization
    return headers, {"proxy": proxy.url}


def proxy_refused(request: Request, proxy: Proxy) -> ProxyError:
    wanted = "rejected the credentials" if proxy.authorization else "wants credentials"
    return ProxyError(
        f"the proxy {proxy.shown} {wanted} (407 Proxy Authentication Required); give them in "
        "the proxy URL (http://user:password@host:port) or as proxy_auth",
        method=request.method,
        url=request.url,
        proxy=proxy.shown,
        status=PROXY_AUTHENTICATION_REQUIRED,
    )
