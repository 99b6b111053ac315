// The checker core: the Emscripten ES module built by scripts/build.sh (its types are in
// isoscope-module.d.ts, its contract in docs/wasm-api.md).
import createIsoscope from '@isoscope-generated/isoscope.mjs';
import wasmUrl from '@isoscope-generated/isoscope.wasm?url';
import type { CoreFactory } from './types';

const locateFile = (path: string) => (path.endsWith('.wasm') ? wasmUrl : path);

/**
 * A fresh instance of the core: of `module` when given (the page's one compiled module, whose
 * optimised code every instance shares: wasm-module.ts), else of the .wasm fetched and compiled
 * here.
 */
export const createCore: CoreFactory = (module) => {
  if (!module) return createIsoscope({ locateFile });
  return new Promise((resolve, reject) => {
    createIsoscope({
      locateFile,
      instantiateWasm: (imports, done) => {
        // a failed instantiation would leave Emscripten waiting for done() forever
        WebAssembly.instantiate(module, imports).then((instance) => done(instance, module), reject);
        return {};
      },
    }).then(resolve, reject);
  });
};
