/**
 * Jest runs TypeScript through swc (types are checked separately by `tsc --noEmit`).
 *
 * One worker per core the machine has: jest's own default leaves one core to itself, which on a two-core
 * machine is one worker. A third worker (the suites wait on sockets, timers and child processes for about a
 * quarter of their time) took a clean-clone run from 700 to 625 s of jest but made suites with timing
 * bounds fail on a machine that busy (a node missing its heartbeat window, a poll pass late): not worth it.
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
  maxWorkers: availableParallelism(),
  silent: true,
  setupFiles: ['<rootDir>/test/helpers/quiet-environment.ts'],
  testSequencer: '<rootDir>/test/sequencer.js',
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
