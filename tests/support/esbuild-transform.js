/**
 * Jest's transform of the TypeScript sources (jest.config.js): esbuild strips the types and writes CommonJS,
 * file by file, as `isolatedModules` compiles (the types are checked by `npm run typecheck`, not here). It
 * replaced ts-jest's transpiler, which spent about 25 ms of CPU per file where this spends about one: a suite
 * that starts the service loads some 400 files, and a fresh clone transforms each of them before its cache
 * holds them.
 */
const { createHash } = require('node:crypto');
const { transformSync, version } = require('esbuild');

/** The options, as tsconfig.json would give them to a compiler of single files. */
const OPTIONS = { loader: 'ts', format: 'cjs', target: 'es2022', sourcemap: 'external', platform: 'node' };

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, { ...OPTIONS, sourcefile: filename });
    return { code, map };
  },
  getCacheKey(source, filename, { configString }) {
    return createHash('sha1')
      .update(`esbuild ${version} ${JSON.stringify(OPTIONS)}\0${configString}\0${filename}\0`)
      .update(source)
      .digest('hex');
  },
};
