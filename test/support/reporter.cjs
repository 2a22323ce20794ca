// Mocha's spec reporter, plus the counts written to a file so scripts/run-tests.mjs can
// print one closing line for every suite it runs (mocha and Python's unittest), and the
// time each test file took, hooks included, so a file that grew slow is seen at once: the
// slowest are printed at the end and all are written beside the counts (`files`).
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;
const SLOWEST_SHOWN = 15;

class CountingSpec extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const files = {};
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const t = started.get(suite);
      if (t === undefined) return;
      const file = path.relative(process.cwd(), suite.file);
      files[file] = (files[file] ?? 0) + (Date.now() - t);
    });
    runner.once(EVENT_RUN_END, () => {
      const slowest = Object.entries(files)
        .sort((a, b) => b[1] - a[1])
        .slice(0, SLOWEST_SHOWN);
      if (slowest.length > 1) {
        process.stdout.write(`\n  slowest files (hooks included):\n`);
        for (const [file, ms] of slowest) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(8)} s  ${file}\n`);
      }
      const out = process.env.CRUCIBLE_TEST_STATS;
      if (!out) return;
      fs.mkdirSync(path.dirname(out), { recursive: true });
      const s = runner.stats;
      fs.writeFileSync(out, JSON.stringify({ passed: s.passes, failed: s.failures, skipped: s.pending, files }));
    });
  }
}

module.exports = CountingSpec;
