"""The operation groups of the client table (spec section 4, "Client library").

Every method returns the API's JSON (dict or list) as it arrived: no types are added, so a
field the API adds appears at once (spec section 9 rule 6).
"""

from __future__ import annotations

import os
import time
import urllib.parse
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator, Optional

from ._http import multipart

if TYPE_CHECKING:
    from .client import Client

#: Statuses that end a server job (the API's job status list).
JOB_ENDED = ("succeeded", "failed", "cancelled")
#: Pause between two asks for an action result (spec section 8: about 0.5 s).
ACTION_POLL_S = 0.5
#: How long ``external.observation`` asks the server to hold the answer for a turn (``Prefer: wait``).
OBSERVATION_WAIT_S = 20


def _q(value: str) -> str:
    """A path segment: ids are opaque strings, so they are escaped."""
    return urllib.parse.quote(str(value), safe="")


def _without_none(fields: dict) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


class _Group:
    def __init__(self, client: "Client") -> None:
        self._c = client


class Applications(_Group):
    """Applications: software with pinned source and images."""

    def create(self, name: str, source: dict, images: dict | None = None, policies: str = "", **fields: Any) -> dict:
        """POST /v1/applications. ``fields`` may add ``notes`` and ``connection_mode``."""
        return self._c.post("/v1/applications", _without_none({"name": name, "source": source, "images": images, "policies": policies, **fields}))

    def import_catalog(self) -> Any:
        """POST /v1/applications/import-catalog: registers the packaged sample applications."""
        return self._c.post("/v1/applications/import-catalog", {})

    def list(self) -> list:
        return self._c.list_all("/v1/applications")

    def get(self, app_id: str) -> dict:
        return self._c.get(f"/v1/applications/{_q(app_id)}")

    def upload_source(self, app_id: str, archive: "str | os.PathLike[str] | bytes | BinaryIO") -> Any:
        """POST /v1/applications/{app_id}/source with a .tar.gz archive: a file path, bytes,
        or a binary file object."""
        if isinstance(archive, (bytes, bytearray)):
            content, filename = bytes(archive), "source.tar.gz"
        elif isinstance(archive, (str, os.PathLike)):
            with open(archive, "rb") as f:
                content = f.read()
            filename = os.path.basename(os.fspath(archive))
        else:
            content = archive.read()
            filename = os.path.basename(getattr(archive, "name", "source.tar.gz") or "source.tar.gz")
        data, content_type = multipart("file", filename, content)
        return self._c._transport.request("POST", f"/v1/applications/{_q(app_id)}/source", data=data, content_type=content_type)


class Worlds(_Group):
    """World builds, worlds, world versions and their scenarios."""

    def build(self, application_id: str, **options: Any) -> dict:
        """POST /v1/world-builds. Options: model, budget_usd, auto_approve, scenario_target,
        max_repair_rounds, check_determinism. Answers job_id, world_id, world_version_id, version."""
        return self._c.post("/v1/world-builds", {"application_id": application_id, **options})

    def list(self) -> list:
        return self._c.list_all("/v1/worlds")

    def version(self, wv_id: str) -> dict:
        return self._c.get(f"/v1/world-versions/{_q(wv_id)}")

    def scenarios(self, wv_id: str) -> list:
        return self._c.list_all(f"/v1/world-versions/{_q(wv_id)}/scenarios")

    def validate(
        self,
        wv_id: str,
        model: Optional[str] = None,
        budget_usd: Optional[float] = None,
        no_model: bool = False,
    ) -> Any:
        """Replays every scenario and withdraws unfair ones. `model`: a model agent that plays
        each fair scenario without the answer key (it spends); `no_model`: none, even when
        the server has a default (SERVICE_VALIDATION_MODEL)."""
        body = _without_none({"model": model, "budget_usd": budget_usd})
        if no_model:
            body["model"] = None
        return self._c.post(f"/v1/world-versions/{_q(wv_id)}/validate", body)

    def bundle(self, wv_id: str, include_images: bool = False) -> Any:
        path = f"/v1/world-versions/{_q(wv_id)}/bundle?include_images={'true' if include_images else 'false'}"
        return self._c.post(path, {})


class Jobs(_Group):
    """Server jobs: long work with pause, resume, stop and retry."""

    def get(self, job_id: str) -> dict:
        return self._c.get(f"/v1/jobs/{_q(job_id)}")

    def command(self, job_id: str, command: str) -> dict:
        """``command`` is one of pause, resume, stop, retry."""
        return self._c.post(f"/v1/jobs/{_q(job_id)}/commands", {"command": command})

    def events(self, job_id: str, cursor: int = 0) -> Iterator[dict]:
        """The job's events after ``cursor`` until ``stream.end``; reconnects after a lost connection."""
        return self._c.stream(f"/v1/jobs/{_q(job_id)}/events", cursor)

    def wait(self, job_id: str, timeout_s: float = 21600, poll_s: float = 3) -> dict:
        """Reads the job every ``poll_s`` seconds until it has ended (succeeded, failed or
        cancelled) and returns it; raises TimeoutError after ``timeout_s`` seconds."""
        deadline = time.monotonic() + timeout_s
        while True:
            job = self.get(job_id)
            if job.get("status") in JOB_ENDED:
                return job
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"job {job_id} still {job.get('status')} after {timeout_s} s")
            time.sleep(min(poll_s, left))


class Profiles(_Group):
    """Agent profiles, versioned by name."""

    def create(self, name: str, system_prompt: str = "", **fields: Any) -> dict:
        """POST /v1/agent-profiles. Fields: tool_guidance, model, temperature,
        max_turns_per_actor, driver (``llm`` or ``external``)."""
        return self._c.post("/v1/agent-profiles", {"name": name, "system_prompt": system_prompt, **fields})

    def list(self) -> list:
        return self._c.list_all("/v1/agent-profiles")


class Evaluations(_Group):
    """Starting runs and comparing them."""

    def create(self, world_version_id: str, profile_ids: list, splits: list | None = None, repeats: int | None = None, **fields: Any) -> dict:
        """POST /v1/evaluations. Fields: scenario_ids, default_stress, budget_usd,
        max_episode_cost_usd. Answers run_id, job_id, episodes, shards, starts_at."""
        body = _without_none({"world_version_id": world_version_id, "profile_ids": list(profile_ids), "splits": splits, "repeats": repeats})
        return self._c.post("/v1/evaluations", {**body, **fields})

    def compare(self, run_a: str, run_b: str | None = None) -> dict:
        """GET /v1/compare: the profiles of one run, or two runs on the same pinned world
        version. Answers world_version_id, world_content_hash, runs (summary per run id),
        scenario_set and comparisons (verdict, difference with its interval, p-value,
        per_scenario). Runs on different scenario sets are compared over the scenarios both
        ran; scenario_set names the rest (mode ``intersection``, left_out, only_in, changed).
        Runs on different world content, or with no scenario in common, raise ApiError 409."""
        return self._c.get("/v1/compare", {"run_a": run_a, "run_b": run_b})


class Runs(_Group):
    """Runs and their episodes."""

    def get(self, run_id: str) -> dict:
        return self._c.get(f"/v1/runs/{_q(run_id)}")

    def episodes(self, run_id: str) -> list:
        return self._c.list_all(f"/v1/runs/{_q(run_id)}/episodes")

    def episode(self, ep_id: str) -> dict:
        return self._c.get(f"/v1/episodes/{_q(ep_id)}")

    def events(self, run_id: str, cursor: int = 0) -> Iterator[dict]:
        """The run's events after ``cursor`` until ``stream.end``; reconnects after a lost connection."""
        return self._c.stream(f"/v1/runs/{_q(run_id)}/events", cursor)

    def intervene(self, ep_id: str, **body: Any) -> Any:
        """POST /v1/episodes/{ep_id}/interventions, e.g. ``kind='customer_message', text='...'``."""
        return self._c.post(f"/v1/episodes/{_q(ep_id)}/interventions", body)

    def command(self, run_id: str, command: str) -> Any:
        """``command`` is one of pause, resume, stop, retry; goes to every shard it applies to."""
        return self._c.post(f"/v1/runs/{_q(run_id)}/commands", {"command": command})


class External(_Group):
    """Bring your own agent: read the waiting turn, send its action."""

    def observation(self, ep_id: str, wait_s: float = OBSERVATION_WAIT_S) -> dict:
        """GET /v1/episodes/{ep_id}/observation: episode_status, awaiting_action, turn.

        Waits for the turn instead of polling: asks with ``Prefer: wait=<wait_s>``, so a server
        that supports it holds the answer until a turn waits for the action or the episode
        ends (at most ``wait_s`` seconds, 30 at most). A server without it answers at once,
        as it always did, and the caller asks again after a second or two. ``wait_s=0``
        asks once, without waiting."""
        path = f"/v1/episodes/{_q(ep_id)}/observation"
        wait = max(0, min(int(wait_s), 30))
        if not wait:
            return self._c.get(path)
        transport = self._c._transport
        return transport.request("GET", path, headers={"Prefer": f"wait={wait}"}, timeout=transport.timeout + wait)

    def act(self, ep_id: str, actor: str, tool: str, args: dict | None, idempotency_key: str, wait_s: float = 120) -> dict:
        """Sends one action, then asks for its result every 0.5 s until it is done, and
        returns that answer (``{status: 'done', result: ...}``). Raises TimeoutError after
        ``wait_s`` seconds; ask again with the same key: the action is not carried out twice."""
        self._c.post(f"/v1/episodes/{_q(ep_id)}/actions", {"actor": actor, "tool": tool, "args": args or {}, "idempotency_key": idempotency_key})
        deadline = time.monotonic() + wait_s
        path = f"/v1/episodes/{_q(ep_id)}/actions/{_q(idempotency_key)}"
        while True:
            answer = self._c.get(path)
            if answer.get("status") == "done":
                return answer
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"action {idempotency_key} of episode {ep_id} still {answer.get('status')} after {wait_s} s")
            time.sleep(min(ACTION_POLL_S, left))
