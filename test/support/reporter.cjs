// Mocha's spec reporter, plus what scripts/run-tests.mjs needs for its closing report, written
// to CRUCIBLE_TEST_STATS at the end: the counts; per test file, the tests' own time (the sum of
// their durations) and, in a serial run, the file's wall time from its first hook to its last
// (in the parallel phase the events arrive replayed, so the workers write the wall time
// themselves: test/support/job-hooks.ts); every skipped test with its file and full title,
// which the report matches with the reasons test/support/skips.ts recorded; and every failure.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } =
  Mocha.Runner.constants;

const relative = (file) => (file ? path.relative(process.cwd(), file) : null);

class CountingSpec extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const wallMs = {};
    const testMs = {};
    const pending = [];
    const failures = [];
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const t = started.get(suite);
      if (t === undefined) return;
      const file = relative(suite.file);
      wallMs[file] = (wallMs[file] ?? 0) + (Date.now() - t);
    });
    const timed = (test) => {
      const file = relative(test.file);
      if (file) testMs[file] = (testMs[file] ?? 0) + (test.duration ?? 0);
    };
    runner.on(EVENT_TEST_PASS, timed);
    runner.on(EVENT_TEST_FAIL, timed);
    // a failed test or hook, with the first lines of its error: the closing report repeats them
    // last, where a CI log's tail still shows them
    runner.on(EVENT_TEST_FAIL, (test, err) => {
      const message = String(err?.message ?? err ?? '')
        .split('\n')
        .slice(0, 6)
        .join('\n');
      failures.push({ file: relative(test.file), title: test.fullTitle(), message: message.slice(0, 1500) });
    });
    runner.on(EVENT_TEST_PENDING, (test) => {
      pending.push({ file: relative(test.file), title: test.fullTitle() });
    });
    runner.once(EVENT_RUN_END, () => {
      const out = process.env.CRUCIBLE_TEST_STATS;
      if (!out) return;
      fs.mkdirSync(path.dirname(out), { recursive: true });
      const s = runner.stats;
      fs.writeFileSync(
        out,
        JSON.stringify({
          passed: s.passes,
          failed: s.failures,
          skipped: s.pending,
          wallMs,
          testMs,
          pending,
          failures,
        }),
      );
    });
  }
}

module.exports = CountingSpec;
