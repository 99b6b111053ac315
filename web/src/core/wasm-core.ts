// The real checker core: the Emscripten ES module built by scripts/build.sh.
// @ts-ignore -- generated at build time, no type declarations
import createIsoscope from '@isoscope-generated/isoscope.mjs';
import wasmUrl from '@isoscope-generated/isoscope.wasm?url';
import type { CoreFactory, IsoscopeModule } from './types';

export const createCore: CoreFactory = async () => {
  const mod = await createIsoscope({
    locateFile: (path: string) => (path.endsWith('.wasm') ? wasmUrl : path),
  });
  return mod as IsoscopeModule;
};
export const coreKind = 'wasm';
