/// <reference lib="webworker" />
// A module worker that owns one instance of the checker core and the parsed history.
// The page runs two: a "data" worker (statistics, history view, conversion) and a "check"
// worker (checkLevel), so that a long check never stalls the history view and cancelling
// (terminate + respawn) never loses the loaded history.
import { createCore } from '../core/wasm-core';
import type { IsoscopeModule } from '../core/types';
import { CoreFailure } from '../core/result';
import { handleRequest } from './handle';
import type { Envelope, Init, Reply } from './protocol';

// The page's compiled module (the first message, Init), instantiated at once: a request never
// waits for the core to be made when the worker has had a moment since it started.
let compiled: WebAssembly.Module | undefined;
let mod: Promise<IsoscopeModule> | null = null;
const core = () => (mod ??= createCore(compiled));

async function handle(m: Envelope): Promise<unknown> {
  // Progress goes out at most every 100 ms: the solver reports every 50 ms.
  let last = 0;
  return handleRequest(await core(), m, (progress) => {
    const now = performance.now();
    if (now - last < 100) return;
    last = now;
    (self as unknown as Worker).postMessage({ id: m.id, progress });
  });
}

self.onmessage = async (ev: MessageEvent<Envelope | Init>) => {
  if ('init' in ev.data) {
    compiled = ev.data.init ?? undefined;
    core().catch(() => { mod = null; });  // the first request tries again, and reports the error
    return;
  }
  const m = ev.data;
  let reply: Reply;
  try {
    reply = { id: m.id, ok: true, result: await handle(m) };
  } catch (e) {
    // The core's own errors keep their location. Anything else (a trap, an abort, a stack
    // overflow's RangeError, out of memory) may leave the instance corrupt: it is dropped, the
    // next request starts a fresh one, and the reply says so (crashed) for the page to tell.
    const core = e instanceof CoreFailure;
    reply = { id: m.id, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e), detail: core ? e.detail : undefined, crashed: !core };
    if (!core) mod = null;
  }
  (self as unknown as Worker).postMessage(reply, transferables(reply));
};

/** The buffers of the typed arrays directly inside a result (the timeline's): moved, not copied. */
function transferables(reply: Reply): Transferable[] {
  if (!('result' in reply) || !reply.result || typeof reply.result !== 'object') return [];
  return Object.values(reply.result).filter((v): v is ArrayBufferView => ArrayBuffer.isView(v)).map((v) => v.buffer as ArrayBuffer);
}
