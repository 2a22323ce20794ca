"""World builds and server jobs through the client: build, wait, events, worlds."""

from __future__ import annotations

import unittest

from crucible_client import ApiError

import fixture


class BuildsAndJobs(unittest.TestCase):
    def test_a_catalog_build_is_waited_for_and_publishes_a_world_version(self) -> None:
        world = fixture.catalog_world()
        build, job = world["build"], world["job"]
        self.assertEqual(set(build) >= {"job_id", "world_id", "world_version_id", "version"}, True)
        self.assertEqual(job["status"], "succeeded")
        self.assertEqual(job["id"], build["job_id"])
        c = fixture.client()
        version = c.worlds.version(build["world_version_id"])
        self.assertEqual(version["status"], "published")
        scenarios = c.worlds.scenarios(build["world_version_id"])
        self.assertGreater(len(scenarios), 0)
        self.assertTrue({s["split"] for s in scenarios} <= {"train", "dev", "holdout"})
        listed = [v["id"] for w in c.worlds.list() for v in w["versions"]]
        self.assertIn(build["world_version_id"], listed)

    def test_job_events_replay_in_order_and_end_with_stream_end(self) -> None:
        world = fixture.catalog_world()
        events = list(fixture.client().jobs.events(world["build"]["job_id"]))
        ids = [e["event_id"] for e in events]
        self.assertEqual(ids, list(range(1, len(ids) + 1)))
        self.assertEqual(events[-1]["type"], "stream.end")
        self.assertEqual(events[-1]["data"]["status"], "succeeded")
        phases = [e["data"]["phase"] for e in events if e["type"] == "compiler.phase.finished"]
        self.assertIn("publish", phases)
        later = list(fixture.client().jobs.events(world["build"]["job_id"], cursor=ids[-3]))
        self.assertEqual([e["event_id"] for e in later], ids[-2:])

    def test_wait_raises_TimeoutError_while_a_paused_job_has_not_ended(self) -> None:
        c = fixture.client()
        build = c.worlds.build(fixture.catalog_world()["app"]["id"])
        paused = c.jobs.command(build["job_id"], "pause")
        self.assertTrue(paused["pause_requested"])
        with self.assertRaises(TimeoutError):
            c.jobs.wait(build["job_id"], timeout_s=1, poll_s=0.2)
        c.jobs.command(build["job_id"], "resume")
        self.assertEqual(c.jobs.wait(build["job_id"], timeout_s=600, poll_s=0.5)["status"], "succeeded")

    def test_job_commands_and_reads_of_unknown_jobs_are_refused(self) -> None:
        c = fixture.client()
        with self.assertRaises(ApiError) as caught:
            c.jobs.get("job_unknown")
        self.assertEqual(caught.exception.status, 404)
        with self.assertRaises(ApiError) as bad:
            c.jobs.command(fixture.catalog_world()["build"]["job_id"], "explode")
        self.assertEqual(bad.exception.status, 422)

    def test_reading_jobs_needs_evaluator(self) -> None:
        from crucible_client import Client

        writer = Client(api_key=fixture.key_with(["write"]))
        with self.assertRaises(ApiError) as caught:
            writer.jobs.get(fixture.catalog_world()["build"]["job_id"])
        self.assertEqual(caught.exception.status, 403)


if __name__ == "__main__":
    unittest.main()
