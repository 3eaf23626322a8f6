/**
 * Jest runs TypeScript through swc (types are checked separately by `tsc --noEmit`).
 *
 * One worker more than the machine has cores: jest's own default leaves one core to itself, which on a
 * two-core machine is one worker, and the suites here wait on sockets, timers and child processes for about
 * a quarter of their time (a run's CPU time is 0.72 of the sum of its suites' wall times), so with one
 * worker per core a quarter of the cores sat idle; the extra worker fills them.
 *
 * Quiet: what the code under test writes to the console is dropped (a test that expects a line spies on
 * the console and asserts on it); `npx jest --silent=false <file>` shows it while debugging.
 */
const { availableParallelism } = require('node:os');

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testTimeout: 20000,
  maxWorkers: availableParallelism() + 1,
  silent: true,
  setupFiles: ['<rootDir>/test/helpers/quiet-environment.ts'],
  testSequencer: '<rootDir>/test/sequencer.js',
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
