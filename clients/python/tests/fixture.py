"""What the client tests share: the server the runner started, and one catalog world.

test/support/run-python-tests.ts starts a whole service (as `npm start` runs it), makes a
workspace on the team plan and passes ``SERVICE_URL`` and ``SERVICE_API_KEY`` (an admin
key) in the environment; ``HOME`` and ``SERVICE_CONFIG`` point into a temporary folder so
no real sign-in of the machine is read.
"""

from __future__ import annotations

import os
import socket
import threading
import urllib.parse

from crucible_client import Client

_world: dict | None = None


def url() -> str:
    return os.environ["SERVICE_URL"]


def admin_key() -> str:
    return os.environ["SERVICE_API_KEY"]


def client(**kwargs) -> Client:
    return Client(**kwargs)


def key_with(scopes: list[str], name: str = "python test") -> str:
    """A new key of the workspace with these scopes."""
    return client().post("/v1/api-keys", {"name": name, "scopes": scopes})["api_key"]


def catalog_world() -> dict:
    """The first catalog application built once for the whole suite:
    ``{app, build, job}`` (``build`` is the answer of worlds.build)."""
    global _world
    if _world is None:
        c = client()
        apps = c.applications.list()
        catalog = [a for a in apps if a["source"]["kind"] == "upload" and a["name"] == "shop-support"]
        app = catalog[0] if catalog else c.applications.import_catalog()["registered"][0]
        build = c.worlds.build(app["id"])
        job = c.jobs.wait(build["job_id"], timeout_s=600, poll_s=0.5)
        _world = {"app": app, "build": build, "job": job}
    return _world


class CuttingProxy:
    """A TCP proxy in front of the server that cuts each of its first ``cuts`` connections
    once ``after_bytes`` bytes of the answer went through, as a network that drops a
    long-lived connection would. ``requests`` holds the request line of every connection."""

    def __init__(self, after_bytes: int, cuts: int) -> None:
        target = urllib.parse.urlsplit(url())
        self.target = (target.hostname, target.port)
        self.after_bytes = after_bytes
        self.cuts = cuts
        self.requests: list[str] = []
        self.cut = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        upstream = socket.create_connection(self.target)
        with self._lock:
            index = len(self.requests)
            self.requests.append("")
        cut_this = index < self.cuts

        def upload() -> None:
            first = True
            try:
                while data := conn.recv(65536):
                    if first:
                        self.requests[index] = data.split(b"\r\n", 1)[0].decode(errors="replace")
                        first = False
                    upstream.sendall(data)
            except OSError:
                pass

        threading.Thread(target=upload, daemon=True).start()
        sent = 0
        try:
            while data := upstream.recv(65536):
                if cut_this and sent + len(data) >= self.after_bytes:
                    conn.sendall(data[: self.after_bytes - sent])
                    with self._lock:
                        self.cut += 1
                    break
                conn.sendall(data)
                sent += len(data)
        except OSError:
            pass
        finally:
            for s in (conn, upstream):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
