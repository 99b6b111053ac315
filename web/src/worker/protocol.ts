// Messages between the page and a core worker.
import type { Counterexample, FoundTxn, HistoryPartJson, InputStats, LevelInfo, LevelResult, NamesJson, ParseError, SessionRange, Txn, WriteReaders } from '../core/types';
import type { TimelineData } from '../model/timeline';

export interface InFile { name: string; data: ArrayBuffer }

export type Request =
  | { op: 'load'; files: InFile[]; format: string }
  | { op: 'levels' }
  | { op: 'histories'; files: InFile[] }
  | { op: 'checkLevel'; level: string; budgetMs: number; maxAnomalies: number }
  | { op: 'levelResult'; level: string }
  | { op: 'transactions'; begin: number; end: number }
  | { op: 'sessions' }
  | { op: 'timeline' }
  | { op: 'readers'; txn: number }
  | { op: 'find'; query: string; limit: number }
  | { op: 'names' }
  | { op: 'convert'; to: string }
  | { op: 'counterexample'; level: string; index: number; budgetMs: number }
  /** a step of the built-in warm-up (warm-up.ts: warmUpStep) */
  | { op: 'warmUp'; step: number };

/** What each request's successful reply holds (client.ts's call is typed by it). */
export interface Replies {
  load: InputStats;
  levels: LevelInfo[];
  histories: HistoryPartJson[];
  checkLevel: LevelResult;
  levelResult: LevelResult;
  transactions: Txn[];
  sessions: SessionRange[];
  timeline: TimelineData;
  readers: WriteReaders[];
  find: FoundTxn[];
  names: NamesJson;
  convert: string;
  counterexample: Counterexample;
  warmUp: null;
}
export type ReplyTo<R extends Request> = Replies[R['op']];

/** The first message to a worker: the page's compiled module (null: compile your own). */
export interface Init { init: WebAssembly.Module | null }

export type Envelope = { id: number } & Request;
/** Progress inside a long level (the strong solver): constraints settled and still open. */
export interface Progress { settled: number; open: number }
export type Reply =
  | { id: number; ok: true; result: unknown }
  /** detail: the core's located error (a CoreFailure); absent for crashes, which set crashed (the worker dropped its module instance) */
  | { id: number; ok: false; error: string; detail?: ParseError; crashed?: boolean }
  | { id: number; progress: Progress };
