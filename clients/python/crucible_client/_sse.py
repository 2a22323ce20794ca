"""Server-sent event streams that survive a lost connection (spec section 6).

Each event is one JSON object on a ``data:`` line. The iterator remembers the last
``event_id`` it yielded and, when the connection drops before ``stream.end``, opens the
stream again with ``cursor=<last event_id>``: the server continues after it, so nothing is
lost and nothing is repeated.

When the key is revoked (or the console session ends) while the stream is open, the
server sends a final ``event: unauthenticated`` frame with ``{"status": 401, "detail": ...}``
and closes; the iterator raises ApiError 401 and does not reconnect, as it does for a 401
answer to a reconnect.
"""

from __future__ import annotations

import http.client
import json
import time
from typing import IO, Iterator

from ._http import ApiError, Transport

#: Consecutive failed connections (without any event in between) before giving up.
MAX_RECONNECTS = 8
#: Longest pause between two connection attempts, in seconds.
MAX_PAUSE_S = 10.0


def parse(body: IO[bytes]) -> Iterator[tuple[str | None, str | None, int | None, str | None]]:
    """Yields ``(id, data, retry_ms, event)`` per dispatched SSE message of a byte stream;
    ``event`` is the ``event:`` field (None for a plain message)."""
    data: list[str] = []
    event_id: str | None = None
    retry: int | None = None
    name: str | None = None
    while True:
        raw = body.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data or retry is not None:
                yield event_id, "\n".join(data) if data else None, retry, name
            data, event_id, retry, name = [], None, None, None
            continue
        if line.startswith(":"):
            continue  # a comment: `connected`, `heartbeat`
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "id":
            event_id = value
        elif field == "event":
            name = value
        elif field == "retry" and value.isdigit():
            retry = int(value)


def events(transport: Transport, path: str, cursor: int = 0) -> Iterator[dict]:
    """Yields the events of the stream at ``path`` after ``cursor``, up to and including
    ``stream.end``, reconnecting after a lost connection. A refused request raises ApiError
    at once; ConnectionError is raised after MAX_RECONNECTS failed attempts in a row."""
    last = cursor
    failures = 0
    pause_s = 1.0
    while True:
        res = None
        progressed = False
        error: BaseException | None = None
        try:
            res = transport.open("GET", path, {"cursor": last}, headers={"Accept": "text/event-stream"})
            for _id, data, retry, name in parse(res):
                if retry is not None:
                    pause_s = min(retry / 1000.0, MAX_PAUSE_S)
                if data is None:
                    continue
                event = json.loads(data)
                if name == "unauthenticated":
                    # the key was revoked or the session ended: a reconnect would answer 401
                    raise ApiError(int(event.get("status", 401)), event.get("detail", ""), "GET", path)
                event_id = event.get("event_id")
                if isinstance(event_id, int):
                    if event_id <= last and event.get("type") != "stream.end":
                        continue  # already yielded before the reconnect
                    last = max(last, event_id)
                progressed = True
                yield event
                if event.get("type") == "stream.end":
                    return
            # closed by the server without stream.end: continue after `last`
        except ApiError:
            raise
        except (OSError, http.client.HTTPException) as err:
            error = err
        finally:
            if res is not None:
                res.close()
        # a connection that brought nothing counts as a failure, so a dead server ends the loop
        failures = 0 if progressed else failures + 1
        if failures > MAX_RECONNECTS:
            raise ConnectionError(f"event stream {path} lost {failures} times in a row after event {last}") from error
        time.sleep(min(pause_s * max(1, failures), MAX_PAUSE_S))
