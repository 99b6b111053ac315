// Plain-language names for anomaly kinds the core reports (pure).
const KINDS: Record<string, [string, string]> = {
  LostUpdate: ['Lost update', 'Two transactions read the same version of a key and both overwrite it, so one update is lost.'],
  WriteSkew: ['Write skew', 'Two transactions each read what the other writes and both commit, which no serial order explains.'],
  LongFork: ['Long fork', 'Two observers see two independent writes in opposite orders.'],
  FracturedRead: ['Fractured read', 'A transaction sees some but not all of another transaction\u2019s writes.'],
  CausalityViolation: ['Causality violation', 'A transaction sees an effect without its cause.'],
  NonRepeatableRead: ['Non-repeatable read', 'One transaction reads the same key twice and gets values from different writers.'],
  NonRepeatableReads: ['Non-repeatable read', 'One transaction reads the same key twice and gets values from different writers.'],
  NonMonotonicRead: ['Non-monotonic read', 'A session reads an older value after having seen a newer one.'],
  ThinAirRead: ['Thin-air read', 'A read returns a value that no transaction wrote.'],
  AbortedRead: ['Aborted read', 'A read returns a value written by an aborted transaction (dirty read).'],
  DirtyRead: ['Dirty read', 'A read returns a value written by a transaction that did not commit.'],
  FutureRead: ['Future read', 'A transaction reads a value that it writes only later.'],
  IntermediateRead: ['Intermediate read', 'A read returns a value that its writer later overwrote in the same transaction.'],
  NotMyOwnWrite: ['Not my own write', 'After writing a key, a transaction reads a value written by someone else.'],
  NotMyLastWrite: ['Not my last write', 'After writing a key twice, a transaction reads its own older value.'],
  SessionGuaranteeViolation: ['Session guarantee violation', 'A session does not observe its own earlier transactions.'],
  StaleRead: ['Stale read', 'A read misses a write that completed, in real time, before the read began.'],
  RealTimeViolation: ['Real-time violation', 'The only serial orders contradict the real-time order of transactions.'],
  CyclicCO: ['Commit-order cycle', 'The dependencies force a transaction to commit before itself.'],
  G0: ['G0: write cycle', 'Transactions overwrite each other in a cycle.'],
  G1a: ['G1a: aborted read', 'A read returns a value written by an aborted transaction.'],
  G1b: ['G1b: intermediate read', 'A read returns a value its writer later overwrote.'],
  G1c: ['G1c: circular information flow', 'Transactions read from each other in a cycle.'],
  'G-single': ['G-single: read skew', 'A dependency cycle with exactly one anti-dependency.'],
  GSingle: ['G-single: read skew', 'A dependency cycle with exactly one anti-dependency.'],
  G2: ['G2: anti-dependency cycle', 'A dependency cycle with several anti-dependencies (e.g. write skew).'],
  'G2-item': ['G2: anti-dependency cycle', 'A dependency cycle with several anti-dependencies (e.g. write skew).'],
};

/** "NonRepeatableRead" -> "Non repeatable read" for kinds we have no entry for. */
export function humanizeKind(kind: string): string {
  const s = kind.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
}

export function describeKind(kind: string): { title: string; summary: string } {
  const k = KINDS[kind];
  return k ? { title: k[0], summary: k[1] } : { title: humanizeKind(kind), summary: '' };
}

export const EDGE_DOCS: Record<string, string> = {
  SO: 'session order',
  WR: 'write \u2192 read (reads from)',
  WW: 'write \u2192 write (overwrites)',
  RW: 'read \u2192 write (anti-dependency)',
  RT: 'real-time order',
  CO: 'commit order',
};
