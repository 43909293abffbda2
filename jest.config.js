/** Jest runs the TypeScript sources directly; esbuild only transpiles (`npm run typecheck` checks types). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // esbuild strips the types, file by file (tests/support/esbuild-transform.js); `npm run typecheck` checks them.
  transform: { '^.+\\.ts$': '<rootDir>/tests/support/esbuild-transform.js' },
  testTimeout: 30000,
  // One more worker than cores: most suites spend part of their time waiting (child processes, timers, the
  // stores' writer threads), and a third worker fills it: the integration suites of calls and chats took 40 s
  // instead of 53 on two cores, for the same CPU time.
  maxWorkers: 3,
  testSequencer: '<rootDir>/tests/support/slow-kinds-first.js',
};
