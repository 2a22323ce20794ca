"""The credential order of spec section 5 rule 8, and ValueError with no key anywhere."""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from unittest import mock

from crucible_client import DEFAULT_BASE_URL, Client, config_path

import fixture


class CredentialOrder(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.saved = os.path.join(self.dir.name, "config.json")
        with open(self.saved, "w") as f:
            json.dump({"api_key": "svc_saved000_secret", "base_url": "http://saved.example:1"}, f)

    def tearDown(self) -> None:
        self.dir.cleanup()

    def env(self, **values: str) -> dict:
        base = {k: v for k, v in os.environ.items() if k not in ("SERVICE_API_KEY", "SERVICE_URL", "SERVICE_CONFIG")}
        base["HOME"] = self.dir.name
        base.update(values)
        return base

    def test_explicit_arguments_win_over_everything(self) -> None:
        with mock.patch.dict(os.environ, self.env(SERVICE_API_KEY="svc_envenv00_x", SERVICE_URL="http://env.example:2", SERVICE_CONFIG=self.saved), clear=True):
            c = Client(api_key="svc_explicit_x", base_url="http://explicit.example:3/")
        self.assertEqual(c._transport.api_key, "svc_explicit_x")
        self.assertEqual(c.base_url, "http://explicit.example:3")

    def test_environment_overrides_the_saved_sign_in(self) -> None:
        with mock.patch.dict(os.environ, self.env(SERVICE_API_KEY="svc_envenv00_x", SERVICE_URL="http://env.example:2", SERVICE_CONFIG=self.saved), clear=True):
            c = Client()
        self.assertEqual(c._transport.api_key, "svc_envenv00_x")
        self.assertEqual(c.base_url, "http://env.example:2")

    def test_saved_sign_in_at_SERVICE_CONFIG_when_the_environment_is_empty(self) -> None:
        with mock.patch.dict(os.environ, self.env(SERVICE_CONFIG=self.saved), clear=True):
            c = Client()
            self.assertEqual(config_path(), self.saved)
        self.assertEqual(c._transport.api_key, "svc_saved000_secret")
        self.assertEqual(c.base_url, "http://saved.example:1")

    def test_saved_sign_in_at_the_default_path_under_home(self) -> None:
        default = os.path.join(self.dir.name, ".config", "crucible", "config.json")
        os.makedirs(os.path.dirname(default))
        with open(default, "w") as f:
            json.dump({"api_key": "svc_homehome_x"}, f)
        with mock.patch.dict(os.environ, self.env(), clear=True):
            self.assertEqual(config_path(), default)
            c = Client()
        self.assertEqual(c._transport.api_key, "svc_homehome_x")
        self.assertEqual(c.base_url, DEFAULT_BASE_URL, "no address anywhere: the default address")

    def test_key_and_address_are_resolved_separately(self) -> None:
        with mock.patch.dict(os.environ, self.env(SERVICE_URL="http://env.example:2", SERVICE_CONFIG=self.saved), clear=True):
            c = Client()
        self.assertEqual(c._transport.api_key, "svc_saved000_secret")
        self.assertEqual(c.base_url, "http://env.example:2")

    def test_no_key_anywhere_raises_ValueError(self) -> None:
        with mock.patch.dict(os.environ, self.env(SERVICE_CONFIG=os.path.join(self.dir.name, "missing.json")), clear=True):
            with self.assertRaises(ValueError) as caught:
                Client(base_url="http://x.example")
        self.assertIn("SERVICE_API_KEY", str(caught.exception))

    def test_a_saved_file_that_is_not_json_counts_as_no_sign_in(self) -> None:
        with open(self.saved, "w") as f:
            f.write("not json")
        with mock.patch.dict(os.environ, self.env(SERVICE_CONFIG=self.saved), clear=True):
            with self.assertRaises(ValueError):
                Client()

    def test_the_environment_of_the_runner_reaches_the_real_server(self) -> None:
        me = fixture.client().get("/v1/me")
        self.assertTrue(me["project_id"].startswith("prj_"))
        self.assertIn("admin", me["scopes"])


if __name__ == "__main__":
    unittest.main()
