"""Bring your own agent with the client (spec section 4): an external profile, a run, one
action per waiting turn on every episode until the run finishes, and its summary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import unittest
import uuid

from crucible_client import ApiError

import fixture

RUN_ENDED = ("finished", "failed", "cancelled")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def wait_turn(c, ep_id: str, timeout_s: float = 120) -> dict | None:
    """The waiting turn of an episode, or None once it is no longer running."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        obs = c.external.observation(ep_id)
        if obs["awaiting_action"]:
            return obs["turn"]["data"]
        if obs["episode_status"] not in ("running", "queued"):
            return None
        time.sleep(0.5)
    raise AssertionError(f"no turn of {ep_id} in {timeout_s} s")


class ExternalRun(unittest.TestCase):
    def setUp(self) -> None:
        self.c = fixture.client()
        self.wv = fixture.catalog_world()["build"]["world_version_id"]

    def start(self, name: str, **fields) -> tuple[dict, dict]:
        profile = self.c.profiles.create(f"{name}-{uuid.uuid4().hex[:6]}", driver="external")
        run = self.c.evaluations.create(self.wv, [profile["id"]], **fields)
        return profile, run

    def test_a_whole_run_acted_on_episode_by_episode_until_it_finishes(self) -> None:
        profile, run = self.start("py-byo", splits=["dev"], repeats=1, default_stress=False)
        self.assertEqual(profile["driver"], "external")
        self.assertIn(profile["id"], [p["id"] for p in self.c.profiles.list()])
        self.assertGreater(run["episodes"], 0)
        run_id, keys, replied = run["run_id"], [], set()
        deadline = time.monotonic() + 600
        while True:
            acted = False
            for ep in self.c.runs.episodes(run_id):
                if ep["status"] not in ("running", "queued"):
                    continue
                obs = self.c.external.observation(ep["id"])
                if not obs["awaiting_action"]:
                    continue
                turn = obs["turn"]["data"]
                names = [t["function"]["name"] for t in turn["tools"]]
                if "complete" not in names:
                    tool, args = "wait", {}
                elif ep["id"] not in replied:
                    tool, args = "reply_to_customer", {"text": "Thanks, I am looking into it."}
                else:
                    tool, args = "complete", {"summary": "answered the customer"}
                key = uuid.uuid4().hex
                answer = self.c.external.act(ep["id"], turn["actor"], tool, args, key)
                self.assertEqual(answer["status"], "done")
                self.assertIn("result", answer)
                if tool == "reply_to_customer":
                    replied.add(ep["id"])
                keys.append(key)
                acted = True
            current = self.c.runs.get(run_id)
            if current["status"] in RUN_ENDED:
                break
            self.assertLess(time.monotonic(), deadline, "the run did not finish in time")
            if not acted:
                time.sleep(1)

        self.assertEqual(current["status"], "finished")
        entry = current["summary"]["profiles"][f"{profile['name']}@v{profile['version']}"]
        self.assertEqual(entry["episodes"], run["episodes"])
        episodes = self.c.runs.episodes(run_id)
        self.assertTrue(all(e["status"] not in ("running", "queued") for e in episodes))
        self.assertTrue(all(e["termination"] == "completed" for e in episodes), [e["termination"] for e in episodes])
        record = self.c.runs.episode(episodes[0]["id"])
        self.assertGreaterEqual(len(record["actions"]), 2)

        events = list(self.c.runs.events(run_id))
        self.assertEqual(events[-1]["type"], "stream.end")
        accepted = {e["data"].get("idempotency_key") for e in events if e["type"] == "action.accepted"}
        self.assertTrue(set(keys) <= accepted, "every action sent is in the run's events")
        compared = self.c.evaluations.compare(run_id)
        self.assertEqual(compared["world_version_id"], self.wv)
        self.assertIn(run_id, compared["runs"])

    def test_observation_waits_for_the_next_turn_instead_of_polling(self) -> None:
        _, run = self.start("py-wait", splits=["dev"], repeats=1, default_stress=False)
        deadline = time.monotonic() + 120
        ep_id = None
        while ep_id is None:
            self.assertLess(time.monotonic(), deadline, "no episode started")
            running = [e for e in self.c.runs.episodes(run["run_id"]) if e["status"] == "running"]
            ep_id = running[0]["id"] if running else None
            if ep_id is None:
                time.sleep(0.5)
        first = wait_turn(self.c, ep_id)
        self.assertIsNotNone(first)
        # the server says it held the answer (Preference-Applied), and the answer is the turn
        with self.c._transport.open("GET", f"/v1/episodes/{ep_id}/observation", headers={"Prefer": "wait=5"}) as res:
            self.assertEqual(res.headers.get("Preference-Applied"), "wait=5")
        self.c.external.act(ep_id, first["actor"], "wait", {}, uuid.uuid4().hex)
        # one call, no sleep: the server holds it until the next turn is offered
        nxt = self.c.external.observation(ep_id, wait_s=20)
        self.assertTrue(nxt["awaiting_action"], nxt)
        self.c.runs.command(run["run_id"], "stop")

    def test_a_key_acts_once_another_action_under_it_is_refused_and_stop_ends_the_run(self) -> None:
        scenario = self.c.worlds.scenarios(self.wv)[0]["scenario_id"]
        _, run = self.start("py-keys", scenario_ids=[scenario], repeats=1, default_stress=False)
        ep_id = self.c.runs.episodes(run["run_id"])[0]["id"]
        turn = wait_turn(self.c, ep_id)
        key = uuid.uuid4().hex
        text = "Could you tell me the e-mail address on your account?"
        first = self.c.external.act(ep_id, turn["actor"], "reply_to_customer", {"text": text}, key)
        again = self.c.post(f"/v1/episodes/{ep_id}/actions", {"actor": turn["actor"], "tool": "reply_to_customer", "args": {"text": text}, "idempotency_key": key})
        self.assertEqual(again["duplicate"], True)
        self.assertEqual(self.c.external.act(ep_id, turn["actor"], "reply_to_customer", {"text": text}, key), first)
        with self.assertRaises(ApiError) as refused:
            self.c.external.act(ep_id, turn["actor"], "wait", {}, key)
        self.assertEqual(refused.exception.status, 409)
        self.assertEqual(refused.exception.detail, "idempotency key already used for a different action")
        record = self.c.runs.episode(ep_id)
        self.assertEqual(sum(1 for a in record["actions"] if json.dumps(a).find(key) >= 0), 1, "carried out once")

        self.c.runs.intervene(ep_id, kind="customer_message", text="One more thing: please hurry.")
        seen = []
        for _ in range(5):
            turn = wait_turn(self.c, ep_id)
            if turn is None:
                break
            seen += [m["content"] for m in turn["new"]]
            if any("please hurry" in s for s in seen):
                break
            self.c.external.act(ep_id, turn["actor"], "wait", {}, uuid.uuid4().hex)
        self.assertTrue(any("please hurry" in s for s in seen), seen)

        self.c.runs.command(run["run_id"], "stop")
        deadline = time.monotonic() + 300
        while (status := self.c.runs.get(run["run_id"])["status"]) not in RUN_ENDED:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.5)
        self.assertEqual(status, "cancelled")

    def test_the_sample_agent_plays_a_whole_run(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "clients", "python")}
        for name in ("OPENAI_BASE_URL", "MODEL", "OPENAI_MODEL"):
            env.pop(name, None)
        out = subprocess.run(
            [sys.executable, os.path.join(ROOT, "examples", "python_agent.py"), "--world-version", self.wv, "--split", "dev", "--json"],
            env=env, capture_output=True, text=True, timeout=600,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        run = json.loads(out.stdout)
        self.assertEqual(run["status"], "finished")
        self.assertIn("python-sample-agent@v", "".join(run["summary"]["profiles"]))
        self.assertIn("complete", out.stderr)


if __name__ == "__main__":
    unittest.main()
