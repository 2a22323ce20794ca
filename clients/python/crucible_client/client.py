"""The Client: one server, one key, the API's JSON back as dict or list."""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from . import _credentials, _sse
from ._http import Transport
from ._resources import Applications, Evaluations, External, Jobs, Profiles, Runs, Worlds


class Client:
    """A client of the Crucible API (release 0.1.2 of /v1).

    ``api_key`` and ``base_url`` are found in this order: the argument, then the
    ``SERVICE_API_KEY`` / ``SERVICE_URL`` environment variables, then the saved terminal
    sign-in (``crucible login``; ``~/.config/crucible/config.json`` or ``SERVICE_CONFIG``),
    then, for the address, ``http://localhost:8080``. With no key anywhere it raises
    ValueError. ``timeout`` bounds each request (seconds). A refused request raises
    ``ApiError`` with ``status`` and ``detail``.
    """

    def __init__(self, api_key: str | None = None, base_url: str | None = None, timeout: float = 60) -> None:
        creds = _credentials.resolve(api_key, base_url)
        self.base_url = creds.base_url
        self.timeout = timeout
        self._transport = Transport(creds.base_url, creds.api_key, timeout)
        self.applications = Applications(self)
        self.worlds = Worlds(self)
        self.jobs = Jobs(self)
        self.profiles = Profiles(self)
        self.evaluations = Evaluations(self)
        self.runs = Runs(self)
        self.external = External(self)

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """GET ``path`` (e.g. ``/v1/me``) with optional query ``params``."""
        return self._transport.request("GET", path, params)

    def list_all(self, path: str, params: Mapping[str, Any] | None = None) -> list:
        """GET a list operation and every further page its ``Link: <...>; rel="next"`` headers
        name; the items of all pages as one list."""
        return self._transport.list_all(path, params)

    def post(self, path: str, body: Any = None) -> Any:
        """POST ``body`` as JSON to ``path``."""
        return self._transport.request("POST", path, body=body if body is not None else {})

    def stream(self, path: str, cursor: int = 0) -> Iterator[dict]:
        """The events of a stream operation after ``cursor``, one dict each, up to and
        including ``stream.end``. After a lost connection it reconnects from the last event."""
        return _sse.events(self._transport, path, cursor)

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r})"
