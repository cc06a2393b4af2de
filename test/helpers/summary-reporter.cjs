// Mocha's spec reporter plus one plain closing line, "N passed, N failed[, N skipped]", which CI reads.
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`);
    });
  }
}

module.exports = SummaryReporter;
