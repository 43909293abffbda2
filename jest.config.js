/** Jest runs the TypeScript sources directly (swc strips types; `npm run typecheck` checks them). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs', ignoreDynamic: true } }] },
  testTimeout: 30000,
  maxWorkers: 2,
};
