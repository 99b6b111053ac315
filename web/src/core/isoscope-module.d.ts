// The types of the module scripts/build.sh generates (Emscripten + embind from
// wasm/bindings/embind.cpp); web/tsconfig.json maps '@isoscope-generated/isoscope.mjs' here.
import type { IsoscopeModule } from './types';

declare const createIsoscope: (options: {
  locateFile?: (path: string) => string;
  wasmBinary?: ArrayBuffer;
  /** Emscripten's hook: instantiate the module yourself, then call done (return {}: asynchronous) */
  instantiateWasm?: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
}) => Promise<IsoscopeModule>;
export default createIsoscope;
