/**
 * The order of a jest run's suites (jest.config.js `testSequencer`): the longest first, so the long ones do
 * not start last and keep the run going on one worker while the others sit idle.
 *
 * Jest orders that way itself once its cache holds each suite's last duration; on a fresh clone it has none
 * and orders by file size, and the longest suites here (the browser ones, two routers on one table, the
 * minute-long freeze) are not the largest files: the last one started could run 100 s after the others end.
 * A suite jest has no duration for takes the seconds test/suite-seconds.json gives it (measured on the
 * 2-core machine the project is tested on; only an order, never a bound), and one listed nowhere counts as a
 * second. Suites that failed last time still come first, as in jest's own order.
 */
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const listed = require('./suite-seconds.json');

class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached !== undefined) return cached / 1000;
      return listed[relative(test.context.config.rootDir, test.path)] ?? 1;
    };
    const order = tests.map((test) => ({ test, failed: this.hasFailed(test), seconds: seconds(test) }));
    order.sort((a, b) => Number(b.failed) - Number(a.failed) || b.seconds - a.seconds);
    return order.map((entry) => entry.test);
  }
}

module.exports = LongestFirst;
