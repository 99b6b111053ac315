// The checker core: the Emscripten ES module built by scripts/build.sh (its types are in
// isoscope-module.d.ts, its contract in docs/wasm-api.md).
import createIsoscope from '@isoscope-generated/isoscope.mjs';
import wasmUrl from '@isoscope-generated/isoscope.wasm?url';
import type { CoreFactory } from './types';

export const createCore: CoreFactory = () =>
  createIsoscope({ locateFile: (path: string) => (path.endsWith('.wasm') ? wasmUrl : path) });
