"""evaluations.compare (GET /v1/compare): two runs on one world version with different
scenario sets are compared over the scenarios both ran, and the answer names the ones left
out; runs with no scenario in common are refused with a 409 whose detail says so."""

from __future__ import annotations

import time
import unittest
import uuid

from crucible_client import ApiError

import fixture

RUN_ENDED = ("finished", "failed", "cancelled")


class Compare(unittest.TestCase):
    def setUp(self) -> None:
        self.c = fixture.client()
        self.wv = fixture.catalog_world()["build"]["world_version_id"]
        self.profile = self.c.profiles.create(f"py-compare-{uuid.uuid4().hex[:6]}", model="builtin:reference")

    def run_on(self, scenario_ids: list[str]) -> str:
        run = self.c.evaluations.create(self.wv, [self.profile["id"]], repeats=1, scenario_ids=scenario_ids)
        deadline = time.monotonic() + 300
        while self.c.runs.get(run["run_id"])["status"] not in RUN_ENDED:
            self.assertLess(time.monotonic(), deadline, "the run did not end in time")
            time.sleep(0.5)
        return run["run_id"]

    def test_different_scenario_sets_compare_over_the_shared_ones_and_name_the_rest(self) -> None:
        ids = sorted(s["scenario_id"] for s in self.c.worlds.scenarios(self.wv) if s.get("status") == "approved")
        self.assertGreaterEqual(len(ids), 3)
        first = self.run_on(ids[0:2])
        second = self.run_on(ids[1:3])
        compared = self.c.evaluations.compare(first, second)
        self.assertEqual(compared["world_version_id"], self.wv)
        scenario_set = compared["scenario_set"]
        self.assertEqual(scenario_set["mode"], "intersection")
        self.assertEqual(scenario_set["scenarios"], 1)
        self.assertEqual(scenario_set["compared"], [ids[1]])
        self.assertEqual(scenario_set["left_out"], [ids[0], ids[2]])
        self.assertEqual(scenario_set["only_in"], {first: [ids[0]], second: [ids[2]]})
        self.assertEqual(len(compared["comparisons"]), 1)
        self.assertEqual(compared["comparisons"][0]["scenarios"], 1)
        self.assertEqual([s["scenario_id"] for s in compared["comparisons"][0]["per_scenario"]], [ids[1]])

        alone = self.run_on([ids[2]])
        with self.assertRaises(ApiError) as refused:
            self.c.evaluations.compare(first, alone)
        self.assertEqual(refused.exception.status, 409)
        self.assertIn("no scenario in common", refused.exception.detail)


if __name__ == "__main__":
    unittest.main()
