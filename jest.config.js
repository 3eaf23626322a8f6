/** Jest runs TypeScript through swc (types are checked separately by `tsc --noEmit`). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testTimeout: 20000,
};
