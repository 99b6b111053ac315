/// <reference lib="webworker" />
// A module worker that owns one instance of the checker core and the parsed history.
// The page runs two: a "data" worker (statistics, history view, conversion) and a "check"
// worker (checkLevel), so that a long check never stalls the history view and cancelling
// (terminate + respawn) never loses the loaded history.
import { createCore, coreKind } from 'isoscope-core';
import type { IsoscopeModule } from '../core/types';
import { expandZips } from '../load/zip';
import type { Envelope, Reply } from './protocol';

let mod: Promise<IsoscopeModule> | null = null;
const core = () => (mod ??= createCore());

function parse(s: string): unknown {
  return JSON.parse(s);
}

/** Results that are {"ok": false, "error": {...}} become exceptions (reported to the page). */
function notError(v: any): unknown {
  if (v && typeof v === 'object' && v.ok === false) throw new Error(v.error?.text ?? v.error?.message ?? 'the checker failed');
  return v;
}

async function handle(m: Envelope): Promise<unknown> {
  if (m.op === 'kind') return coreKind;
  const c = await core();
  switch (m.op) {
    case 'load': {
      let files;
      try {
        files = expandZips(m.files.map((f) => ({ name: f.name, data: new Uint8Array(f.data) })));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        return { ok: false, error: { message, text: message } };
      }
      return parse(c.load(files.map((f) => f.name), files.map((f) => f.data), m.format));
    }
    case 'levels': return parse(c.levels());
    case 'checkLevel': return notError(parse(c.checkLevel(m.level, m.budgetMs, m.maxAnomalies)));
    case 'transactions': return parse(c.transactions(m.begin, m.end));
    case 'sessions': return parse(c.sessions());
    case 'convert': {
      const text = c.convert(m.to);
      // the core answers {"ok": false, "error": ...} when the history cannot be expressed
      if (/^\s*\{\s*"ok"\s*:\s*false/.test(text)) notError(parse(text));
      return text;
    }
  }
}

self.onmessage = async (ev: MessageEvent<Envelope>) => {
  const m = ev.data;
  let reply: Reply;
  try {
    reply = { id: m.id, ok: true, result: await handle(m) };
  } catch (e) {
    // embind/abort errors, out of memory: report, never die silently
    reply = { id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) };
    if (/abort|memory|unreachable/i.test(reply.error)) mod = null; // the instance may be corrupt
  }
  (self as unknown as Worker).postMessage(reply);
};
