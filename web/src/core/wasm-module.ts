// The core's WebAssembly module, compiled once per page and handed to every core worker
// (client.ts): an instance of a compiled module is made in a few milliseconds, and V8 shares
// the module's code between the workers, including the functions it has optimised since, so a
// worker started for a new file or after a cancel runs optimised code from its first call.
// Compiled from the stream (Chromium caches the optimised code of a streamed module for the
// next visit).
import wasmUrl from '@isoscope-generated/isoscope.wasm?url';

let compiled: Promise<WebAssembly.Module | null> | null = null;

/** The compiled module; null when the page may not compile wasm (then each worker compiles its own). */
export function coreModule(): Promise<WebAssembly.Module | null> {
  return (compiled ??= compile().catch(() => null));
}

async function compile(): Promise<WebAssembly.Module> {
  const url = new URL(wasmUrl, import.meta.url);
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch {
    // a server that does not say application/wasm: compile the bytes
    return WebAssembly.compile(await (await fetch(url)).arrayBuffer());
  }
}
