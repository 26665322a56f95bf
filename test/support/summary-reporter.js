'use strict'
// Mocha's spec reporter plus the closing line CI reads: "N passed, M failed" (skipped tests, if
// any, are counted on the line before it, so the last line keeps exactly that form).
const Mocha = require('mocha')
const { EVENT_RUN_END } = Mocha.Runner.constants

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options)
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats
      if (pending) process.stdout.write(`\n${pending} skipped`)
      process.stdout.write(`\n${passes} passed, ${failures} failed\n`)
    })
  }
}

module.exports = SummaryReporter
