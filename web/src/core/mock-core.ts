// MockIsoscope: a small TypeScript imitation of the embind API, used by unit tests (and by
// `ISOSCOPE_MOCK_CORE=1 vite` before the wasm exists). It parses only canonical isoscope JSON
// and "checks" by detecting one anomaly (lost update); it is NOT a checker.
import type { IsoscopeModule, Op, Txn } from './types';

const LEVELS = ['RC', 'RR', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER'];

export class MockIsoscope implements IsoscopeModule {
  private txns: Txn[] = [];
  private sessionRanges: { first: number; count: number }[] = [];
  private initial: unknown = null;
  private timestamps = false;
  /** milliseconds checkLevel busy-waits (tests of cancellation) */
  delayMs = 0;

  load(names: string[], blobs: Uint8Array[], format: string): string {
    const t0 = Date.now();
    const name = names[0] ?? 'input';
    if (blobs.length === 0) return JSON.stringify({ ok: false, error: { file: name, message: 'no input', text: 'no input' } });
    const b = blobs[0];
    if ((b[0] === 0x50 && b[1] === 0x4b) || (b[0] === 0x1f && b[1] === 0x8b)) {
      const message = 'an archive: only the wasm core expands zip and gzip files (the mock reads plain JSON)';
      return JSON.stringify({ ok: false, error: { file: name, message, text: `${name}: ${message}` } });
    }
    const text = new TextDecoder().decode(blobs[0]);
    let doc: any;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      const m = /position (\d+)/.exec(String(e));
      const offset = m ? Number(m[1]) : 0;
      const line = text.slice(0, offset).split('\n').length;
      const message = 'expected a JSON value';
      return JSON.stringify({ ok: false, error: { file: name, line, column: 1, offset, message, text: `${name}: line ${line} (byte ${offset}): ${message}` } });
    }
    if (!doc || !Array.isArray(doc.sessions)) {
      const message = 'expected an object with "sessions"';
      return JSON.stringify({ ok: false, error: { file: name, line: 1, column: 1, offset: 0, message, text: `${name}: line 1, column 1 (byte 0): ${message}` } });
    }
    this.initial = doc.initial ?? null;
    this.txns = [{ txn: 0, session: -1, index: 0, id: 'init', status: 'committed', committed: true, ops: [] }];
    this.sessionRanges = [];
    this.timestamps = false;
    const keys = new Set<string>();
    let ops = 0;
    doc.sessions.forEach((s: any[], si: number) => {
      const first = this.txns.length;
      s.forEach((t: any, ti: number) => {
        const o: Op[] = Array.isArray(t) ? t : t.ops;
        o.forEach((op) => keys.add(String(op[1])));
        ops += o.length;
        const status = Array.isArray(t) ? 'committed' : t.status ?? 'committed';
        const txn: Txn = { txn: this.txns.length, session: si, index: ti, status, committed: status === 'committed', ops: o };
        if (!Array.isArray(t)) {
          if (t.id !== undefined) txn.id = String(t.id);
          if (t.start !== undefined) { txn.start = t.start; txn.end = t.end; this.timestamps = true; }
        }
        this.txns.push(txn);
      });
      this.sessionRanges.push({ first, count: s.length });
    });
    const input = { format: format || 'isoscope', sessions: doc.sessions.length, transactions: this.txns.length - 1, operations: ops, keys: keys.size, parse_ms: Date.now() - t0 };
    return JSON.stringify({ ok: true, input });
  }

  levels(): string {
    return JSON.stringify(LEVELS.map((level) => (level === 'SSER' && !this.timestamps ? { level, applies: false, reason: 'no timestamps' } : { level, applies: true })));
  }

  private lostUpdate() {
    const seen = new Map<string, number>();
    for (const t of this.txns) {
      for (let i = 0; i < t.ops.length; i++) {
        const op = t.ops[i];
        if (op[0] !== 'r') continue;
        const w = t.ops.findIndex((o, j) => j > i && o[0] === 'w' && o[1] === op[1]);
        if (w < 0) continue;
        const k = `${op[1]}=${JSON.stringify(op[2])}`;
        const prev = seen.get(k);
        if (prev !== undefined) return [prev, t.txn, op[1]] as const;
        seen.set(k, t.txn);
      }
    }
    return null;
  }

  checkLevel(level: string, _budgetMs: number, maxAnomalies: number): string {
    const t0 = Date.now();
    if (this.delayMs) while (Date.now() - t0 < this.delayMs) { /* busy */ }
    if (level === 'SSER' && !this.timestamps) return JSON.stringify({ verdict: 'n/a', reason: 'no timestamps' });
    const lu = this.lostUpdate();
    const strong = ['SI', 'SER', 'SSER'].includes(level);
    if (!lu || !strong || maxAnomalies <= 0) return JSON.stringify({ verdict: 'pass', ms: Date.now() - t0 });
    const [a, b, key] = lu;
    const wt = (n: number) => ({ txn: n, session: this.txns[n].session, index: this.txns[n].index, id: this.txns[n].id });
    return JSON.stringify({
      verdict: 'fail', ms: Date.now() - t0,
      anomalies: [{
        kind: 'LostUpdate', transactions: [wt(a), wt(b)],
        edges: [
          { from: 0, to: 1, type: 'RW', key, from_op: 0, to_op: 1, why: 'T2 overwrites the value T1 read' },
          { from: 1, to: 0, type: 'RW', key, from_op: 0, to_op: 1, why: 'T1 overwrites the value T2 read' },
        ],
        explanation: `T${a} and T${b} both read ${key} and both write it: each must precede the other, a contradiction`,
      }],
    });
  }

  check(levelsCsv: string, budgetMs: number, maxAnomalies: number): string {
    const names = levelsCsv ? levelsCsv.split(',') : LEVELS;
    const levels: Record<string, unknown> = {};
    for (const l of names) levels[l] = JSON.parse(this.checkLevel(l, budgetMs, maxAnomalies));
    return JSON.stringify({ input: {}, levels });
  }

  transactions(begin: number, end: number): string {
    return JSON.stringify(this.txns.slice(Math.max(0, begin), Math.max(0, end)));
  }

  sessions(): string {
    return JSON.stringify(this.sessionRanges);
  }

  counterexample(): string {
    return JSON.stringify({ ok: false, error: { message: 'the mock core builds no counterexamples', text: 'the mock core builds no counterexamples' } });
  }

  convert(to: string): string {
    if (to !== 'isoscope') return '';
    const sessions = this.sessionRanges.map((r) => this.txns.slice(r.first, r.first + r.count).map((t) => {
      const o: Record<string, unknown> = { ops: t.ops };
      if (t.id !== undefined) o.id = t.id;
      if (t.status && t.status !== 'committed') o.status = t.status;
      if (t.start !== undefined) { o.start = t.start; o.end = t.end; }
      return o;
    }));
    return JSON.stringify({ format: 'isoscope/1', initial: this.initial, sessions });
  }
}
