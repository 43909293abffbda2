/** Jest runs the TypeScript sources directly; ts-jest only transpiles (`npm run typecheck` checks types). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        tsconfig: {
          isolatedModules: true,
          module: 'commonjs',
          moduleResolution: 'node10',
          target: 'es2022',
          sourceMap: true,
          esModuleInterop: true,
        },
      },
    ],
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
