// Longest first, so the workers finish together. jest's own order uses the durations of the last
// run on this machine; a fresh clone has none and jest falls back to file size, which would start the
// small files that run the long fault matrices last. Files without a recorded duration are ordered by
// an estimate instead: the reliability suites, the bundle build and the stack synthesis are the slow ones.
const Sequencer = require('@jest/test-sequencer').default;

// Seconds as measured in a full run with three workers on two cores (2026-11-27).
const SLOW = [
  [/test\/reliability\/(ledger-concurrency|fuzz)\.test\.ts$/, 60],
  [/test\/infra\/(mcp-)?bundle\.test\.ts$/, 12],
  [/test\/infra\/iam\//, 10],
  [/test\/infra\//, 50],
  [/test\/reliability\/upstream-faults-\d+\.test\.ts$/, 35],
  [/test\/reliability\/database-faults\.test\.ts$/, 35],
  [/test\/reliability\//, 15],
  [/test\/(e2e|gateway\/client)\//, 8],
  [/test\/gateway\/cli\//, 30],
];

class LongestFirst extends Sequencer {
  sort(tests) {
    const estimate = (path) => (SLOW.find(([re]) => re.test(path.replace(/\\/g, '/'))) ?? [null, 1])[1] * 1000;
    for (const test of tests) test.duration = this.time(test) ?? estimate(test.path);
    const failed = (t) => (this.hasFailed(t) ? 1 : 0);
    return tests.sort((a, b) => failed(b) - failed(a) || b.duration - a.duration);
  }
}

module.exports = LongestFirst;
