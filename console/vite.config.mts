/**
 * The operator console's build: a static bundle in dist/console that the service serves at /console
 * (api/console/static-files.ts). Everything it loads is in the bundle: no font, script or style from
 * another origin.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The budget is on what the first page loads (docs/console.md); the charts come with their page.
    chunkSizeWarningLimit: 300,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  logLevel: 'warn',
});
