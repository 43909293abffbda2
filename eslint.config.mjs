import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers, from the ground up: domain <- projections <- application <- infrastructure <- api. A layer
// imports only those below it; the rules below keep each line of code in its room (docs: style guide).

/** Frameworks, stores and I/O: what the pure layers (domain, projections) never touch. */
const IMPURE_PACKAGES = [
  'express',
  'express-ws',
  'ws',
  'better-sqlite3',
  'mongodb',
  '@kurrent/*',
  'jose',
  'rxjs',
  'node:*',
];

/** The adapters behind the ports, one folder each; what several of them share is in infrastructure/shared/. */
const ADAPTERS = [
  'auth',
  'carrier',
  'chat',
  'config',
  'eventstoredb',
  'filesystem',
  'logging',
  'memory',
  'mongodb',
  'speech',
  'sqlite',
  'webhooks',
];

const noApiFromInfrastructure = {
  group: ['**/api/**'],
  message: 'infrastructure must not import api/: the api composes the adapters, never the reverse.',
};

/** An import of another adapter's folder, as a file of infrastructure/<folder>/ (at any depth) writes it. */
const otherAdapters = (folder) => ({
  regex: `^(\\.\\./)+(infrastructure/)?(${ADAPTERS.filter((a) => a !== folder).join('|')})(/|$)`,
  message:
    'An adapter must not import another adapter: each stands alone behind its port. Move what they share to infrastructure/shared/ (or to application/ when it is port-level logic).',
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      // Nested conditionals read better as a small named function or an if/else.
      'no-nested-ternary': 'error',
    },
  },
  {
    // The console is a client of the public API like any other: it imports none of the service's code.
    files: ['console/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/domain/**', '**/application/**', '**/projections/**', '**/infrastructure/**', '**/api/**'],
              message: 'The console talks to the service over HTTP only (console/src/client/api.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON answers of any shape.
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The domain is the ground floor: pure business rules that every other layer builds on, so it
    // imports only itself; no framework, store or I/O (time and ids arrive in commands).
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/application/**', '**/projections/**', '**/infrastructure/**', '**/api/**'],
              message: 'domain/ imports only domain/: it is the ground every other layer stands on.',
            },
            { group: IMPURE_PACKAGES, message: 'domain/ is pure: no framework, store or I/O package.' },
          ],
        },
      ],
    },
  },
  {
    // Projections are pure (document, event) -> document functions: they read domain events and helpers
    // and their own contract (projections/projection.ts). The application drives them, so a projection
    // that imported the application would tie the two layers in a circle.
    files: ['projections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/application/**', '**/infrastructure/**', '**/api/**'],
              message:
                'projections/ imports only domain/ and projections/ (the Projection contract, RecordedEvent in domain/shared/).',
            },
            { group: IMPURE_PACKAGES, message: 'projections/ are pure: no framework, store or I/O package.' },
          ],
        },
      ],
    },
  },
  {
    // The application (ports, command handler, projection runner, use cases) stands on the domain and
    // reads read-model documents by their types; behaviour such as a document id or a language key is a
    // domain rule, not the projection's, so it is imported from domain/. Adapters and the api sit above.
    files: ['application/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/projections/**'],
              allowTypeImports: true,
              message:
                'application/ takes only types from projections/ (`import type`); put shared behaviour in domain/.',
            },
            {
              group: ['**/infrastructure/**', '**/api/**'],
              message: 'application/ must not import infrastructure/ or api/: it speaks to adapters through its ports.',
            },
            {
              group: ['express', 'express-ws', 'ws', 'better-sqlite3', 'mongodb', '@kurrent/*', 'jose'],
              message: 'application/ uses frameworks and stores only through its ports.',
            },
          ],
        },
      ],
    },
  },
  {
    // Any infrastructure file (stores.ts, the factory that picks adapters, included).
    files: ['infrastructure/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noApiFromInfrastructure] }] },
  },
  // Each adapter folder, and infrastructure/shared/: no other adapter. (A new adapter folder joins ADAPTERS.)
  ...[...ADAPTERS, 'shared'].map((folder) => ({
    files: [`infrastructure/${folder}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [noApiFromInfrastructure, otherAdapters(folder)] }] },
  })),
);
