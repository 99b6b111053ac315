// What a core worker does with each request, given the core module: pure apart from the module,
// so the unit tests drive it with a stand-in. Every core function answers {"ok": true, "value"}
// or {"ok": false, "error"} (docs/wasm-api.md): the value is returned, the error thrown as a
// CoreFailure that keeps its location. Archives (zip, gzip) go to the core as they are: the C++
// core expands them (wasm/core/formats/archive.cpp), with the command line's limits and messages.
import { unwrap } from '../core/result';
import type { IsoscopeModule, TimelineJson } from '../core/types';
import { timelineData } from '../model/timeline';
import type { Progress, Request } from './protocol';
import { warmUpStep } from './warm-up';

export function handleRequest(c: IsoscopeModule, m: Request, onProgress?: (p: Progress) => void): unknown {
  switch (m.op) {
    case 'load': return unwrap(c.load(m.files.map((f) => f.name), m.files.map((f) => new Uint8Array(f.data)), m.format));
    case 'levels': return unwrap(c.levels());
    case 'histories': return unwrap(c.histories(m.files.map((f) => f.name), m.files.map((f) => new Uint8Array(f.data))));
    case 'checkLevel': return unwrap(c.checkLevel(m.level, m.budgetMs, m.maxAnomalies,
      onProgress && ((settled: number, open: number) => onProgress({ settled, open }))));
    case 'levelResult': return unwrap(c.levelResult(m.level));
    case 'transactions': return unwrap(c.transactions(m.begin, m.end));
    case 'sessions': return unwrap(c.sessions());
    // typed arrays, transferred to the page without a copy (core.worker.ts)
    case 'timeline': return timelineData(unwrap<TimelineJson>(c.timeline()));
    case 'readers': return unwrap(c.readers(m.txn));
    case 'find': return unwrap(c.find(m.query, m.limit));
    case 'names': return unwrap(c.names());
    case 'counterexample': return unwrap(c.counterexample(m.level, m.index, m.budgetMs));
    case 'convert': return unwrap(c.convert(m.to));
    case 'warmUp': return warmUpStep(c, m.step);
  }
}
