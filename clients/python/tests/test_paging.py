"""Paged lists: ``list()`` methods follow ``Link: <...>; rel="next"`` headers and return every
item, and ``next_link`` reads the header as RFC 8288 writes it."""

from __future__ import annotations

import unittest
import uuid

from crucible_client._http import next_link

import fixture


class Paging(unittest.TestCase):
    def test_profiles_list_follows_every_page(self) -> None:
        c = fixture.client()
        name = f"paged-{uuid.uuid4().hex[:8]}"
        # more than one page of the default limit (100)
        for _ in range(105):
            c.profiles.create(name)
        first = c._transport.open("GET", "/v1/agent-profiles", {"limit": 100})
        with first as res:
            self.assertIn('rel="next"', res.headers.get("Link", ""))
        mine = [p for p in c.profiles.list() if p["name"] == name]
        self.assertEqual([p["version"] for p in mine], list(range(105, 0, -1)))
        ids = [p["id"] for p in c.list_all("/v1/agent-profiles", {"limit": 7})]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertTrue(set(p["id"] for p in mine) <= set(ids))

    def test_next_link_reads_rfc8288(self) -> None:
        self.assertEqual(next_link('</v1/runs?cursor=abc>; rel="next"'), "/v1/runs?cursor=abc")
        self.assertEqual(next_link('</a>; rel="prev", </b>; rel="next"'), "/b")
        self.assertIsNone(next_link('</a>; rel="prev"'))
        self.assertIsNone(next_link(None))


if __name__ == "__main__":
    unittest.main()
