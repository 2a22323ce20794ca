"""A stream whose key is revoked while it is open ends with ApiError 401 and is not opened
again (docs/events.md: the final ``unauthenticated`` frame); a 401 answer to a reconnect
ends it the same way. A small local server plays the gateway, so the test sees exactly
which requests the client makes."""

from __future__ import annotations

import http.server
import json
import threading
import unittest

from crucible_client import ApiError, Client


class _Gateway(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, answers: list[str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers = answers
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *_args) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        server: _Gateway = self.server  # type: ignore[assignment]
        server.requests.append(self.path)
        kind = server.answers[min(len(server.requests), len(server.answers)) - 1]
        if kind == "401":
            body = json.dumps({"detail": "this API key was revoked"}).encode()
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        event = {"event_id": 1, "type": "job.progress", "summary": "working", "stream": "job_1", "data": {}}
        frames = "retry: 10\n\n: connected\n\n" + f"id: 1\ndata: {json.dumps(event)}\n\n"
        if kind == "revoked":
            frames += 'event: unauthenticated\ndata: {"status":401,"detail":"this API key was revoked"}\n\n'
        self.wfile.write(frames.encode())
        self.wfile.flush()
        self.close_connection = True


class StreamRevoked(unittest.TestCase):
    def follow(self, answers: list[str]) -> tuple[list[dict], ApiError, list[str]]:
        server = _Gateway(answers)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        seen: list[dict] = []
        try:
            with self.assertRaises(ApiError) as caught:
                for event in Client(api_key="crk_test_not_checked", base_url=server.url).stream("/v1/jobs/job_1/events"):
                    seen.append(event)
        finally:
            server.shutdown()
            server.server_close()
        return seen, caught.exception, server.requests

    def test_the_final_unauthenticated_frame_raises_401_without_reconnecting(self) -> None:
        seen, error, requests = self.follow(["revoked", "stream"])
        self.assertEqual(error.status, 401)
        self.assertEqual(error.detail, "this API key was revoked")
        self.assertEqual([e["event_id"] for e in seen], [1], "the events before the frame still arrive")
        self.assertEqual(len(requests), 1, "no second connection")

    def test_a_401_answer_to_a_reconnect_ends_the_stream(self) -> None:
        seen, error, requests = self.follow(["stream", "401", "stream"])
        self.assertEqual(error.status, 401)
        self.assertEqual([e["event_id"] for e in seen], [1])
        self.assertEqual(len(requests), 2, "one reconnect, refused, and no more")
        self.assertIn("cursor=1", requests[1])


if __name__ == "__main__":
    unittest.main()
