// Loads the page's own module (build-wasm/isoscope.mjs, an ES module) in Node, the wasm bytes
// read here and passed as wasmBinary (its glue would fetch them, as a page does).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
export const corpusRoot = path.resolve(process.env.ISOSCOPE_CORPUS ?? path.join(repoRoot, '../shared/corpus'));
/**
 * Test options for tests that read the shared corpus (beside the repository, not in it): they
 * skip, saying why, when it is missing.
 */
export const needsCorpus = existsSync(path.join(corpusRoot, 'manifest.json')) ? {} : { skip: `../shared/corpus is missing (${corpusRoot})` };
const buildDir = process.env.ISOSCOPE_WASM_DIR ?? path.join(repoRoot, 'build-wasm');

/** An instance of the module; `small`: the build whose heap stops at 256 MB (memory-limit tests). */
export async function loadIsoscope({ small = false } = {}) {
  const name = small ? 'isoscope-small' : 'isoscope';
  const { default: createIsoscope } = await import(pathToFileURL(path.join(buildDir, `${name}.mjs`)).href);
  const wasmBinary = readFileSync(path.join(buildDir, `${name}.wasm`));
  return createIsoscope({ wasmBinary });
}

// Reads a path (file or directory) as the {names, blobs} pair the module's load() takes.
import { statSync, readdirSync } from 'node:fs';
export function readInput(p) {
  if (statSync(p).isDirectory()) {
    const names = readdirSync(p).filter((n) => statSync(path.join(p, n)).isFile()).sort();
    return { names: names.map((n) => path.join(p, n)), blobs: names.map((n) => new Uint8Array(readFileSync(path.join(p, n)))) };
  }
  return { names: [p], blobs: [new Uint8Array(readFileSync(p))] };
}

/** The value of a core answer ({"ok": true, "value"}: docs/wasm-api.md); throws on an error. */
export function value(json) {
  const r = JSON.parse(json);
  if (r.ok !== true) throw new Error(`the core answered an error: ${JSON.stringify(r.error)}`);
  return r.value;
}
