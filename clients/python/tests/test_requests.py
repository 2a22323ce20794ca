"""Requests against the real server: JSON back as plain dicts and lists, refusals as
ApiError with status and detail, applications and their source uploads."""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
import unittest
import uuid

from crucible_client import ApiError, Client

import fixture


def source_archive() -> bytes:
    """A small .tar.gz of a source folder."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        data = b"name: uploaded\n"
        info = tarfile.TarInfo("world.yaml")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class Requests(unittest.TestCase):
    def test_answers_are_the_api_json_with_no_added_types(self) -> None:
        me = fixture.client().get("/v1/me")
        self.assertIs(type(me), dict)
        self.assertEqual(set(me) >= {"project_id", "scopes", "plan"}, True)
        keys = fixture.client().get("/v1/api-keys")
        self.assertIs(type(keys), list)
        self.assertTrue(all(type(k) is dict for k in keys))

    def test_unknown_id_raises_ApiError_404_with_the_server_detail(self) -> None:
        with self.assertRaises(ApiError) as caught:
            fixture.client().applications.get("app_does_not_exist")
        self.assertEqual(caught.exception.status, 404)
        self.assertIsInstance(caught.exception.detail, str)
        self.assertIn("app_does_not_exist", caught.exception.detail)
        self.assertIn("404", str(caught.exception))

    def test_invalid_body_raises_422_with_a_detail_per_wrong_field(self) -> None:
        with self.assertRaises(ApiError) as caught:
            fixture.client().applications.create("bad", {"kind": "git", "url": "https://example.com/x.git", "commit": "nothex"})
        self.assertEqual(caught.exception.status, 422)
        fields = [d["field"] for d in caught.exception.detail]
        self.assertIn("source.commit", fields)

    def test_a_key_without_the_scope_raises_403_and_an_unknown_key_401(self) -> None:
        reader = Client(api_key=fixture.key_with(["read"]))
        self.assertIs(type(reader.applications.list()), list)
        with self.assertRaises(ApiError) as forbidden:
            reader.get("/v1/api-keys")
        self.assertEqual(forbidden.exception.status, 403)
        with self.assertRaises(ApiError) as unknown:
            Client(api_key="svc_AAAAAAAA_not-a-real-secret").get("/v1/me")
        self.assertEqual(unknown.exception.status, 401)

    def test_a_revoked_key_is_refused_at_once(self) -> None:
        created = fixture.client().post("/v1/api-keys", {"name": "to revoke", "scopes": ["read"]})
        c = Client(api_key=created["api_key"])
        c.get("/v1/applications")
        fixture.client()._transport.request("DELETE", f"/v1/api-keys/{created['id']}")
        with self.assertRaises(ApiError) as caught:
            c.get("/v1/applications")
        self.assertEqual(caught.exception.status, 401)

    def test_get_passes_query_params(self) -> None:
        page = fixture.client().get("/v1/jobs", {"kind": "no_such_kind"})
        self.assertEqual(page, [])
        with self.assertRaises(ApiError) as caught:
            fixture.client().get("/v1/compare", {"run_a": None})
        self.assertEqual(caught.exception.status, 422)

    def test_create_list_get_and_upload_source_of_an_application(self) -> None:
        c = fixture.client()
        name = f"uploaded-{uuid.uuid4().hex[:8]}"
        app = c.applications.create(name, {"kind": "upload"}, policies="be kind", notes="from the python tests")
        self.assertEqual(app["name"], name)
        self.assertEqual(app["policies"], "be kind")
        self.assertEqual(c.applications.get(app["id"])["id"], app["id"])
        self.assertIn(app["id"], [a["id"] for a in c.applications.list()])

        archive = source_archive()
        answer = c.applications.upload_source(app["id"], archive)
        self.assertEqual(answer["application_id"], app["id"])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "src.tar.gz")
            with open(path, "wb") as f:
                f.write(archive)
            again = c.applications.upload_source(app["id"], path)
            with open(path, "rb") as f:
                third = c.applications.upload_source(app["id"], f)
        self.assertEqual(again["source_digest"], answer["source_digest"])
        self.assertEqual(third["source_digest"], answer["source_digest"])

    def test_a_name_used_twice_is_refused_409(self) -> None:
        c = fixture.client()
        name = f"twice-{uuid.uuid4().hex[:8]}"
        c.applications.create(name, {"kind": "upload"})
        with self.assertRaises(ApiError) as caught:
            c.applications.create(name, {"kind": "upload"})
        self.assertEqual(caught.exception.status, 409)


if __name__ == "__main__":
    unittest.main()
