// Types of the JSON that the checker core returns: docs/wasm-api.md (the embind API) and
// docs/result-json.md (the values). tests/wasm/api-contract.test.mjs checks them against each other.

export type Verdict = 'pass' | 'fail' | 'unknown' | 'n/a';

export interface InputStats {
  format: string;
  sessions: number;
  transactions: number;
  operations: number;
  keys: number;
  parse_ms?: number;
  /** some transaction has start and end times (the Timeline and SSER need them) */
  timestamps?: boolean;
  /** what the reader read but left out, by reason (nothing is dropped silently) */
  dropped_events?: number;
  dropped?: { reason: string; count: number }[];
  /** (key, value) pairs written more than once, and the reads of them (any writer may be theirs) */
  repeated_pairs?: number;
  ambiguous_reads?: number;
  /** a counterexample: its transactions' identities in the history it was cut from */
  origin?: Origin;
  [extra: string]: unknown;
}

/** A counterexample's origin: per transaction, [number, session, position] in the original history of `transactions`. */
export interface Origin {
  transactions: number;
  txns: [number, number, number][];
}

export interface ParseError {
  file?: string;
  line?: number;
  column?: number;
  offset?: number;
  message: string;
  text?: string;
  /** no format was recognised: the page offers a choice (readable_as: one that reads it) */
  format_unrecognised?: boolean;
  readable_as?: string;
}

/** What every core function returns, as JSON text. */
export type CoreResult<T> = { ok: true; value: T } | { ok: false; error: ParseError };

export interface LevelInfo {
  level: string;
  applies: boolean;
  reason?: string;
  /** where the core decides this level in a whole check (0 first): the weak levels weakest first, then the strong ones strongest first */
  order?: number;
}

export interface WitnessTxn {
  txn?: number;
  /** null for the initial transaction */
  session: number;
  index: number;
  id?: string;
  /** an object history's operation: the lines of its invocation and completion in the file */
  line?: number;
  completion_line?: number;
}

/** A key or value longer than 64 bytes, as the core names it (docs/result-json.md, "names"):
 *  name "key 1" / "value 2", its shortened form, and its length; names() has it whole. */
export interface LongName { name: string; shown: string; bytes: number }
export type Key = string | number | LongName;
export type Value = number | string | null | LongName | Value[];
/** ["r", key, value] | ["w", key, value] | ["append", key, value] */
export type Op = [string, Key, Value];
/** names(): the long names whole, each once (key n is keys[n - 1]), and long transaction ids. */
export interface NamesJson { keys: string[]; values: string[]; ids: { txn: number; id: string }[] }

export interface Edge {
  from: number;
  to: number;
  type: string;
  key?: Key;
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
  /** a verdict decided by the lattice: on a failure, the weaker level whose violation implies this one; on a pass, the stronger level whose pass implies it */
  implied_by?: string;
  commit_order?: number[];
  /** LIN of an object history that fails: the longest linearizable prefix of the failing key */
  lin_prefix?: number[];
  anomalies?: Anomaly[];
  anomalies_total?: number;  // before truncation to the reported ones
  /** every kind found, most specific first (docs/result-json.md); absent from older results */
  kinds?: KindCount[];
}

export interface KindCount {
  kind: string;
  count: number;
  lower_bound: boolean;  // there may be more
  example?: number;      // index into anomalies of its smallest example
}

/** What the core's counterexample() answers: a history of its own that fails the same level. */
export interface Counterexample {
  history: string;  // canonical JSON; an object history's Jepsen EDN (as convert('isoscope'))
  transactions: number;
  reproduces: boolean;  // re-checked: the level fails on it
  minimal: boolean;     // no transaction can be left out
}

/** One history of a set (folders of runs, several history files): its name and its files (indices). */
export interface HistoryPartJson {
  name: string;
  files: number[];
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
  /** per operation: the transaction a read reads from (0: initial, -1: none; an array: its
   *  candidates, a value written more than once), null for a write */
  read_from?: (number | number[] | null)[];
}

/** timeline(): transaction first + i at index i; null times where a transaction has none. */
export interface TimelineJson {
  first: number;
  start: (number | null)[];
  end: (number | null)[];
  session: number[];
  status: string;  // one letter per transaction: c, a, u
  /** an object history (Jepsen registers, key-value stores): the keys, each transaction's key, each session's process */
  object_keys?: string[];
  object_key?: number[];
  lane_names?: string[];
}

/** find(query, limit): a transaction matching a search, by its label or a key it touches. */
export interface FoundTxn {
  txn: number;
  match: 'number' | 'label' | 'key';  // 'number': the page's own match of T12
}

/** readers(txn): who read each of a transaction's writes. */
export interface WriteReaders {
  position: number;
  readers: number[];
}

export interface SessionRange {
  first: number;
  count: number;
}

export interface FormatInfo {
  name: string;
  title: string;
}

/**
 * The embind module's surface (docs/wasm-api.md). Every function returns the JSON text of a
 * CoreResult<T>, T being the type named in the comment.
 */
export interface IsoscopeModule {
  /** CoreResult<InputStats> */
  load(names: string[], blobs: Uint8Array[], format: string): string;
  /** CoreResult<LevelInfo[]> */
  levels(): string;
  /** CoreResult<HistoryPartJson[]> */
  histories(names: string[], heads: Uint8Array[]): string;
  /** CoreResult<LevelResult>; onProgress(settled, open) from inside long levels (the strong solver). */
  checkLevel(level: string, budgetMs: number, maxAnomalies: number, onProgress?: (settled: number, open: number) => void): string;
  /** CoreResult<LevelResult>: a decided level as it stands (a later pass may rename its anomalies). */
  levelResult(level: string): string;
  /** CoreResult<CheckResult> */
  check(levelsCsv: string, budgetMs: number, maxAnomalies: number): string;
  /** CoreResult<Txn[]> */
  transactions(begin: number, end: number): string;
  /** CoreResult<SessionRange[]> */
  sessions(): string;
  /** CoreResult<TimelineJson> */
  timeline(): string;
  /** CoreResult<WriteReaders[]> */
  readers(txn: number): string;
  /** CoreResult<FoundTxn[]> */
  find(query: string, limit: number): string;
  /** CoreResult<NamesJson> */
  names(): string;
  /** CoreResult<string> */
  convert(to: string): string;
  /** CoreResult<Counterexample> */
  counterexample(level: string, index: number, budgetMs: number): string;
  /** CoreResult<FormatInfo[]> */
  formats(): string;
  /** CoreResult<AnomalyKindInfo[]> */
  anomalyKinds(): string;
  /** CoreResult<number> */
  memoryBytes(): string;
}

export interface AnomalyKindInfo {
  name: string;
  family: string;
  weakest: string;
  title: string;
  description: string;
}

/** What the worker needs: a way to instantiate a module (of a compiled one, when given). */
export type CoreFactory = (module?: WebAssembly.Module) => Promise<IsoscopeModule>;
