import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

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

export default defineConfig({
  root: here('.'),
  base: './',
  publicDir: here('../public'),
  resolve: {
    alias: {
      '@isoscope-generated': coreDir,
    },
  },
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
