"""Where the client finds its key and the server's address (spec section 5 rule 8).

Order, for the key and for the address separately: the explicit argument, then the
environment (``SERVICE_API_KEY`` / ``SERVICE_URL``), then the saved terminal sign-in (the
file ``crucible login`` writes: ``~/.config/crucible/config.json``, or the path in
``SERVICE_CONFIG``), then, for the address only, the default address.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Mapping

#: The address used when nothing else names one: a server started with ``npm start``.
DEFAULT_BASE_URL = "http://localhost:8080"


def config_path(env: Mapping[str, str] | None = None) -> str:
    """The saved sign-in file: ``SERVICE_CONFIG`` when set, else ``~/.config/crucible/config.json``."""
    env = os.environ if env is None else env
    explicit = env.get("SERVICE_CONFIG")
    if explicit:
        return os.path.expanduser(explicit)
    return os.path.join(os.path.expanduser("~"), ".config", "crucible", "config.json")


def read_saved(env: Mapping[str, str] | None = None) -> dict:
    """The saved sign-in as a dict; empty when the file is missing or not a JSON object."""
    try:
        with open(config_path(env), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Credentials:
    """The resolved key and address, and where each came from (for messages)."""

    api_key: str
    base_url: str
    key_source: str
    url_source: str


def resolve(api_key: str | None = None, base_url: str | None = None, env: Mapping[str, str] | None = None) -> Credentials:
    """Applies the credential order; raises ValueError when no key is found anywhere."""
    env = os.environ if env is None else env
    saved: dict | None = None

    def saved_value(name: str) -> str | None:
        nonlocal saved
        if saved is None:
            saved = read_saved(env)
        value = saved.get(name)
        return value if isinstance(value, str) and value else None

    key, key_source = api_key, "argument"
    if not key:
        key, key_source = env.get("SERVICE_API_KEY") or None, "SERVICE_API_KEY"
    if not key:
        key, key_source = saved_value("api_key"), config_path(env)
    if not key:
        raise ValueError(
            "no API key: pass api_key=, set SERVICE_API_KEY, or sign in with `crucible login` "
            f"(saved sign-in looked for at {config_path(env)})"
        )

    url, url_source = base_url, "argument"
    if not url:
        url, url_source = env.get("SERVICE_URL") or None, "SERVICE_URL"
    if not url:
        url, url_source = saved_value("base_url"), config_path(env)
    if not url:
        url, url_source = DEFAULT_BASE_URL, "default"
    return Credentials(api_key=key, base_url=url.rstrip("/"), key_source=key_source, url_source=url_source)
