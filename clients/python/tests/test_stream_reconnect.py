"""Streams reconnect from the last event after a lost connection (spec section 4, client
library; section 6): connections are cut mid-stream by a proxy, and the events still
arrive once each, in order, up to stream.end."""

from __future__ import annotations

import re
import threading
import unittest

from crucible_client import Client

import fixture


class StreamReconnect(unittest.TestCase):
    def page(self, stream: str) -> list[dict]:
        return fixture.client().get(f"/v1/streams/{stream}/events/page", {"cursor": 0, "limit": 1000})

    def test_a_replayed_stream_cut_three_times_arrives_whole(self) -> None:
        job_id = fixture.catalog_world()["build"]["job_id"]
        proxy = fixture.CuttingProxy(after_bytes=1200, cuts=3)
        try:
            events = list(Client(base_url=proxy.url).jobs.events(job_id))
        finally:
            proxy.close()
        self.assertEqual(proxy.cut, 3, "the proxy cut three connections")
        cursors = [int(m.group(1)) for line in proxy.requests if (m := re.search(r"cursor=(\d+)", line))]
        self.assertEqual(len(cursors), 4)
        self.assertEqual(cursors[0], 0)
        self.assertEqual(cursors, sorted(cursors))
        self.assertGreater(cursors[-1], 0, "later connections continue after the last event")
        stored = self.page(job_id)
        self.assertEqual([e["event_id"] for e in events], [e["event_id"] for e in stored])
        self.assertEqual([e["type"] for e in events], [e["type"] for e in stored])
        self.assertEqual(events[-1]["type"], "stream.end")

    def test_a_live_build_followed_through_a_cutting_proxy_loses_and_repeats_nothing(self) -> None:
        c = fixture.client()
        build = c.worlds.build(fixture.catalog_world()["app"]["id"])
        proxy = fixture.CuttingProxy(after_bytes=900, cuts=4)
        seen: list[dict] = []
        try:
            reader = threading.Thread(target=lambda: seen.extend(Client(base_url=proxy.url).jobs.events(build["job_id"])))
            reader.start()
            job = c.jobs.wait(build["job_id"], timeout_s=600, poll_s=0.5)
            reader.join(timeout=120)
        finally:
            proxy.close()
        self.assertFalse(reader.is_alive(), "the stream ended after the job did")
        self.assertEqual(job["status"], "succeeded")
        self.assertEqual(proxy.cut, 4)
        ids = [e["event_id"] for e in seen]
        self.assertEqual(ids, list(range(1, len(ids) + 1)), "every event once, in order")
        self.assertEqual(seen[-1]["type"], "stream.end")
        self.assertEqual(ids, [e["event_id"] for e in self.page(build["job_id"])])

    def test_a_cursor_at_the_end_answers_only_stream_end(self) -> None:
        job_id = fixture.catalog_world()["build"]["job_id"]
        stored = self.page(job_id)
        tail = list(fixture.client().stream(f"/v1/jobs/{job_id}/events", cursor=stored[-1]["event_id"]))
        self.assertEqual([e["type"] for e in tail], ["stream.end"])


if __name__ == "__main__":
    unittest.main()
