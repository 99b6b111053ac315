// What a core worker does with each request, given the core module: pure apart from the module,
// so the unit tests drive it with a stand-in. Archives (zip, gzip) go to the core as they are:
// the C++ core expands them (wasm/core/formats/archive.cpp), the one implementation the command
// line and the app share, with the same limits and error messages.
import type { IsoscopeModule } from '../core/types';
import type { Progress, Request } from './protocol';

function parse(s: string): unknown {
  return JSON.parse(s);
}

/** Results that are {"ok": false, "error": {...}} become exceptions (reported to the page). */
function notError(v: any): unknown {
  if (v && typeof v === 'object' && v.ok === false) throw new Error(v.error?.text ?? v.error?.message ?? 'the checker failed');
  return v;
}

export function handleRequest(c: IsoscopeModule, m: Exclude<Request, { op: 'kind' }>, onProgress?: (p: Progress) => void): unknown {
  switch (m.op) {
    // {"ok": false, "error": {...}} from load is a result the page shows (file, position, message)
    case 'load': return parse(c.load(m.files.map((f) => f.name), m.files.map((f) => new Uint8Array(f.data)), m.format));
    case 'levels': return parse(c.levels());
    case 'checkLevel': return notError(parse(c.checkLevel(m.level, m.budgetMs, m.maxAnomalies,
      onProgress && ((settled: number, open: number) => onProgress({ settled, open })))));
    case 'transactions': return parse(c.transactions(m.begin, m.end));
    case 'sessions': return parse(c.sessions());
    case 'counterexample': return notError(parse(c.counterexample(m.level, m.index, m.budgetMs)));
    case 'convert': {
      const text = c.convert(m.to);
      // the core answers {"ok": false, "error": ...} when the history cannot be expressed
      if (/^\s*\{\s*"ok"\s*:\s*false/.test(text)) notError(parse(text));
      return text;
    }
  }
}
