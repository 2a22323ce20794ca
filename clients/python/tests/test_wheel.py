"""The wheel the gateway serves installs with `pip install <url>` into a fresh virtual
environment and works there against the server (spec section 4; /v1/health client_wheel)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
import urllib.request
import zipfile
import io

import fixture


class Wheel(unittest.TestCase):
    def test_health_names_the_wheel_and_pip_installs_it_from_the_server(self) -> None:
        with urllib.request.urlopen(fixture.url() + "/v1/health") as res:
            import json

            health = json.load(res)
        self.assertRegex(health["client_wheel"], r"^/downloads/crucible_client-0\.1\.2-py3-none-any\.whl$")
        wheel_url = fixture.url() + health["client_wheel"]
        with urllib.request.urlopen(wheel_url) as res:
            names = zipfile.ZipFile(io.BytesIO(res.read())).namelist()
        self.assertIn("crucible_client/client.py", names)
        self.assertIn("crucible_client-0.1.2.dist-info/RECORD", names)

        with tempfile.TemporaryDirectory() as d:
            venv = os.path.join(d, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            python = os.path.join(venv, "bin", "python")
            env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": ""}
            subprocess.run([python, "-m", "pip", "install", "-q", wheel_url], check=True, env=env)
            out = subprocess.run(
                [python, "-c", "import crucible_client, sys; print(crucible_client.__file__); print(crucible_client.Client().get('/v1/me')['project_id'])"],
                check=True, env=env, capture_output=True, text=True, cwd=d,
            ).stdout.split()
        self.assertTrue(out[0].startswith(venv), f"imported from the virtual environment, not the sources: {out[0]}")
        self.assertEqual(out[1], fixture.client().get("/v1/me")["project_id"])


if __name__ == "__main__":
    unittest.main()
