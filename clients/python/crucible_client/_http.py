"""HTTP with the standard library: JSON in and out, refusals raised as ApiError."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Mapping

from ._version import __version__

USER_AGENT = f"crucible-python/{__version__}"


class ApiError(Exception):
    """A request the server refused (status 400 or above).

    ``status`` is the HTTP status and ``detail`` the server's message: a string, or for 422
    a list of ``{field, message}`` items, one per wrong field.
    """

    def __init__(self, status: int, detail: Any, method: str = "", path: str = "") -> None:
        self.status = status
        self.detail = detail
        self.method = method
        self.path = path
        super().__init__(f"{method} {path} answered {status}: {format_detail(detail)}".strip())


def format_detail(detail: Any) -> str:
    """One line for a detail: the text, or ``field: message`` items joined by ``; ``."""
    if isinstance(detail, list):
        parts = []
        for item in detail:
            if isinstance(item, dict) and "field" in item:
                parts.append(f"{item.get('field')}: {item.get('message')}")
            else:
                parts.append(str(item))
        return "; ".join(parts)
    return str(detail)


def query_string(params: Mapping[str, Any] | None) -> str:
    """``?a=1&b=true`` from a mapping; None values are left out, booleans written as JSON."""
    if not params:
        return ""
    pairs = []
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        pairs.append((name, str(value)))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def multipart(field: str, filename: str, content: bytes, content_type: str = "application/gzip") -> tuple[bytes, str]:
    """A multipart/form-data body with one file part; returns (body, content type header)."""
    boundary = "crucible-" + secrets.token_hex(16)
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    return head + content + tail, f"multipart/form-data; boundary={boundary}"


class Transport:
    """Sends requests to one server with one key. Never retries a refused request."""

    def __init__(self, base_url: str, api_key: str, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        if not path.startswith("/"):
            path = "/" + path
        return self.base_url + path + query_string(params)

    def open(self, method: str, path: str, params: Mapping[str, Any] | None = None, data: bytes | None = None,
             headers: Mapping[str, str] | None = None, timeout: float | None = None):
        """Opens a request and returns the live response; raises ApiError on a refusal."""
        h = {"Authorization": f"Bearer {self.api_key}", "User-Agent": USER_AGENT, "Accept": "application/json"}
        h.update(headers or {})
        req = urllib.request.Request(self.url(path, params), data=data, method=method, headers=h)
        try:
            return urllib.request.urlopen(req, timeout=self.timeout if timeout is None else timeout)
        except urllib.error.HTTPError as err:
            raw = err.read()
            err.close()
            raise ApiError(err.code, _detail_of(raw, err.reason), method, path) from None

    def request(self, method: str, path: str, params: Mapping[str, Any] | None = None, body: Any = None,
                data: bytes | None = None, content_type: str | None = None,
                headers: Mapping[str, str] | None = None, timeout: float | None = None) -> Any:
        """Sends one request. A JSON answer is returned parsed; any other answer as bytes."""
        headers = dict(headers or {})
        if body is not None and data is None:
            data = json.dumps(body).encode()
            content_type = "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        with self.open(method, path, params, data, headers, timeout) as res:
            raw = res.read()
            kind = res.headers.get("Content-Type", "")
        if "json" in kind:
            return json.loads(raw) if raw else None
        return raw


    def list_all(self, path: str, params: Mapping[str, Any] | None = None) -> list:
        """Every item of a paged list: the first page, then each page a ``Link: <...>; rel="next"``
        header names, until one names none."""
        items: list = []
        url = self.url(path, params)
        while url:
            h = {"Authorization": f"Bearer {self.api_key}", "User-Agent": USER_AGENT, "Accept": "application/json"}
            req = urllib.request.Request(url, method="GET", headers=h)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    page = json.loads(res.read() or b"[]")
                    nxt = next_link(res.headers.get("Link"))
            except urllib.error.HTTPError as err:
                raw = err.read()
                err.close()
                raise ApiError(err.code, _detail_of(raw, err.reason), "GET", path) from None
            if not isinstance(page, list):
                raise ApiError(0, f"GET {path} did not answer a list", "GET", path)
            items.extend(page)
            url = urllib.parse.urljoin(self.base_url + "/", nxt.lstrip("/")) if nxt else ""
        return items


def next_link(header: str | None) -> str | None:
    """The target of the ``rel="next"`` link of a ``Link`` header (RFC 8288), or None."""
    for part in (header or "").split(","):
        part = part.strip()
        if not part.startswith("<") or ">" not in part:
            continue
        target, _, params = part[1:].partition(">")
        for p in params.split(";"):
            name, _, value = p.strip().partition("=")
            if name.strip().lower() == "rel" and "next" in value.strip().strip('"').split():
                return target
    return None


def _detail_of(raw: bytes, reason: str) -> Any:
    try:
        parsed = json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace").strip() or reason
    if isinstance(parsed, dict) and "detail" in parsed:
        return parsed["detail"]
    return parsed
