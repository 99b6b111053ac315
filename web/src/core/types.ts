// Types of the JSON that the checker core returns (shared/spec/cli.md and the embind API).

export type Verdict = 'pass' | 'fail' | 'unknown' | 'n/a';

export interface InputStats {
  format: string;
  sessions: number;
  transactions: number;
  operations: number;
  keys: number;
  parse_ms?: number;
  [extra: string]: unknown;
}

export interface ParseError {
  file?: string;
  line?: number;
  column?: number;
  offset?: number;
  message: string;
  text?: string;
}

export type LoadResult = { ok: true; input: InputStats } | { ok: false; error: ParseError };

export interface LevelInfo {
  level: string;
  applies: boolean;
  reason?: string;
}

export interface WitnessTxn {
  txn?: number;
  /** null for the initial transaction */
  session: number;
  index: number;
  id?: string;
}

export type Value = number | string | null | Value[];
/** ["r", key, value] | ["w", key, value] | ["append", key, value] */
export type Op = [string, string | number, Value];

export interface Edge {
  from: number;
  to: number;
  type: string;
  key?: string | number;
  from_op?: number;
  to_op?: number;
  why?: string;
}

export interface Anomaly {
  kind: string;
  transactions: WitnessTxn[];
  ops?: unknown[];
  edges?: Edge[];
  explanation?: string;
}

export interface LevelResult {
  verdict: Verdict;
  ms?: number;
  reason?: string;
  anomalies?: Anomaly[];
  anomalies_total?: number;  // before truncation to the reported ones
}

/** What the core's counterexample() answers: a history of its own that fails the same level. */
export interface Counterexample {
  ok: true;
  history: string;  // canonical JSON
  transactions: number;
  reproduces: boolean;  // re-checked: the level fails on it
  minimal: boolean;     // no transaction can be left out
}

export interface CheckResult {
  input: InputStats;
  levels: Record<string, LevelResult>;
}

export interface Txn {
  txn: number;
  session: number;
  index: number;
  id?: string;
  status?: string;
  committed?: boolean;
  start?: number;
  end?: number;
  ops: Op[];
}

export interface SessionRange {
  first: number;
  count: number;
}

/** The embind module's surface, as documented by the lead. Every string result is JSON. */
export interface IsoscopeModule {
  load(names: string[], blobs: Uint8Array[], format: string): string;
  levels(): string;
  /** onProgress(settled, open): progress inside long levels (the strong solver). */
  checkLevel(level: string, budgetMs: number, maxAnomalies: number, onProgress?: (settled: number, open: number) => void): string;
  check(levelsCsv: string, budgetMs: number, maxAnomalies: number): string;
  transactions(begin: number, end: number): string;
  sessions(): string;
  convert(to: string): string;
  /** The reproducing counterexample of a decided level's anomaly (see wasm/bindings/embind.cpp). */
  counterexample(level: string, index: number, budgetMs: number): string;
}

/** What the worker needs: a way to instantiate a module. */
export type CoreFactory = () => Promise<IsoscopeModule>;
