// How `npm test` lays the mocha files out (scripts/run-tests.mjs; docs/testing.md says why).
//
// Every test file runs in the parallel phase, several files at once, each mocha worker a test
// job with resources of its own (test/support/job.ts), unless it is listed here. The files
// listed here need the machine to themselves and run after it, one after another: what they
// measure or provoke (a killed role, a cut link, a heartbeat missed, a bench's figures, a
// compose stack of eleven containers) goes wrong when other files load the two cores. A file
// in the wrong phase shows up as a flaky failure, not as a wrong result.

/** The files of the serial phase, in the order they run, each with the reason it is here. */
export const SERIAL = [
  // a compose stack of its own (podman-compose: eleven containers, images built from this tree)
  ['test/integration/compose-stack.test.ts', 'eleven containers and a scheduler killed mid-run'],
  // the benches at smoke size: two at a time already, and each starts services of its own
  ['test/bench/smoke.test.ts', 'runs every bench, two at a time'],
  // roles on network namespaces, killed and cut off while episodes run
  ['test/integration/scale-failover.test.ts', 'kills and cuts roles on separate hosts; timing of heartbeats'],
  ['test/integration/worker-scaling.test.ts', 'adds and removes workers on separate hosts mid-run'],
];

/** The parallel phase's mocha workers (CRUCIBLE_TEST_JOBS overrides): chosen by measurement, docs/testing.md. */
export const JOBS = 3;
