import { defineConfig, type Plugin } from 'vite';
import { fileURLToPath } from 'node:url';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, relative, sep } from 'node:path';

// The isoscope web app: one multi-page build.
//   dist/index.html         the app (also the iframe embed: index.html?embed)
//   dist/embed/index.html   the documented embed example page
//   dist/embed.js           the <isoscope-check> web component (one script tag)
// The checker core comes from web/generated/isoscope.{mjs,wasm} (built by scripts/build.sh).
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
// ISOSCOPE_CORE_DIR points at another build of the module (default web/generated).
const coreDir = process.env.ISOSCOPE_CORE_DIR ? fileURLToPath(new URL(`file://${process.env.ISOSCOPE_CORE_DIR}/`)) : here('./generated/');
if (!existsSync(`${coreDir}isoscope.mjs`))
  throw new Error(`${coreDir}isoscope.mjs is missing: build the wasm module first (bash scripts/build.sh)`);

/**
 * Writes into dist/sw.js the files this build produced (every file of dist/ but sw.js, as URL
 * paths relative to dist/) and a version, a hash of their names and contents: the service worker
 * caches those and nothing else (public/sw.js), one cache per version.
 */
export function serviceWorkerAssets(): Plugin {
  const MARK = /\/\* isoscope:build \*\/ null \/\* isoscope:build-end \*\//;
  let outDir = '';
  return {
    name: 'isoscope-sw-assets',
    apply: 'build',
    configResolved(c) { outDir = c.build.outDir; },
    // writeBundle: once the app's files are on disk (closeBundle also ends the workers' inner
    // bundles, before dist/ exists on a fresh clone)
    writeBundle() {
      const sw = join(outDir, 'sw.js');
      const files: string[] = [];
      const walk = (d: string) => {
        for (const n of readdirSync(d)) {
          const p = join(d, n);
          if (statSync(p).isDirectory()) walk(p);
          else if (p !== sw) files.push(p);
        }
      };
      walk(outDir);
      const hash = createHash('sha256');
      const assets = files.map((p) => relative(outDir, p).split(sep).map(encodeURIComponent).join('/')).sort();
      for (const a of assets) hash.update(`${a}\0`).update(readFileSync(join(outDir, ...a.split('/').map(decodeURIComponent)))).update('\0');
      const text = readFileSync(sw, 'utf8');
      if (!MARK.test(text)) throw new Error(`${sw}: the build's asset list has no place (public/sw.js lost its isoscope:build mark)`);
      const build = { version: hash.digest('hex').slice(0, 16), assets };
      writeFileSync(sw, text.replace(MARK, JSON.stringify(build)));
    },
  };
}

export default defineConfig({
  root: here('.'),
  base: './',
  publicDir: here('../public'),
  resolve: {
    alias: {
      '@isoscope-generated': coreDir,
    },
  },
  plugins: [serviceWorkerAssets()],
  worker: { format: 'es' },
  build: {
    outDir: here('../dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      input: {
        main: here('./index.html'),
        'embed-example': here('./embed/index.html'),
        embed: here('./src/embed/element.ts'),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'embed' ? 'embed.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  preview: { host: '127.0.0.1' },
  server: { host: '127.0.0.1' },
});
