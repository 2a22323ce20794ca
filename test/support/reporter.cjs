// Mocha's spec reporter, plus the counts written to a file so scripts/run-tests.mjs can
// print one closing line for every suite it runs (mocha and Python's unittest).
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class CountingSpec extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.CRUCIBLE_TEST_STATS;
      if (!file) return;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const s = runner.stats;
      fs.writeFileSync(file, JSON.stringify({ passed: s.passes, failed: s.failures, skipped: s.pending }));
    });
  }
}

module.exports = CountingSpec;
