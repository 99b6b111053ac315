// Orchestrates the core workers: a data worker (stats, history view, conversion) and a check
// worker (checkLevel, level by level). Cancelling terminates the check worker and respawns it.
// Each worker parses its own copy of the history, and a wasm heap never shrinks: a 240 MB input
// (10^7 operations) leaves a 2.1 GB heap behind. Inputs over SHARED_WORKER_BYTES therefore load
// into the check worker alone, which then also serves the history view (between levels).
import type { Counterexample, FoundTxn, HistoryPartJson, InputStats, LevelInfo, LevelResult, Txn, SessionRange, WriteReaders } from '../core/types';
import type { TimelineData } from '../model/timeline';
import { CancelledError, copyFiles, CoreWorker } from '../worker/client';
import type { InFile } from '../worker/protocol';
import { implies, inCheckOrder, type LevelState } from '../model/levels';

/** Above this input size one worker holds the history (see the header). */
export const SHARED_WORKER_BYTES = 100_000_000;

export interface RunOptions {
  levels: string[];
  budgetMs: number;
  maxAnomalies: number;
  onUpdate: (level: string, state: LevelState) => void;
}

export class Checker {
  private data: CoreWorker | null = null;
  private check: CoreWorker | null = null;
  private checkLoaded: Promise<InputStats> | null = null;
  private files: InFile[] = [];
  private format = '';
  private running: { cancelled: boolean; current?: string; reason?: string } | null = null;

  constructor(private readonly useDataWorker = true) {}

  /** Formats are told by names and first bytes: what histories() needs of each file. */
  static readonly HEAD_BYTES = 1 << 16;
  private probe: CoreWorker | null = null;
  /**
   * The histories of a set (dbcop's hist-00000/ folders, two EDN files, ...), each to be loaded
   * on its own; [] when the files hold one history (formats/history_set.h decides).
   */
  async histories(files: InFile[]): Promise<HistoryPartJson[]> {
    if (files.length < 2) return [];
    if (!this.probe || this.probe.dead) this.probe = new CoreWorker('probe');
    const heads = files.map((f) => ({ name: f.name, data: f.data.slice(0, Checker.HEAD_BYTES) }));
    return this.probe.call<HistoryPartJson[]>({ op: 'histories', files: heads }, heads.map((f) => f.data));
  }

  /** Parses the input in the data worker (or the check worker when there is none); a bad input rejects with a CoreFailure. */
  async load(files: InFile[], format = ''): Promise<InputStats> {
    this.dispose();
    this.files = files;
    this.format = format;
    const bytes = files.reduce((n, f) => n + f.data.byteLength, 0);
    if (!this.useDataWorker || bytes > SHARED_WORKER_BYTES) return this.ensureCheck();
    this.data = new CoreWorker('data');
    const copy = copyFiles(files);
    const stats = this.data.call<InputStats>({ op: 'load', files: copy, format }, copy.map((f) => f.data));
    // the check worker parses its copy at the same time, not once the check starts (a bad
    // input's error is the data worker's to report; run() reports the check worker's own)
    this.ensureCheck().catch(() => {});
    return stats;
  }

  private ensureCheck(): Promise<InputStats> {
    if (this.check && !this.check.dead && this.checkLoaded) return this.checkLoaded;
    this.check = new CoreWorker('check');
    const copy = copyFiles(this.files);
    this.checkLoaded = this.check.call<InputStats>({ op: 'load', files: copy, format: this.format }, copy.map((f) => f.data));
    return this.checkLoaded;
  }

  private get reader(): CoreWorker {
    const w = this.data ?? this.check;
    if (!w) throw new Error('nothing loaded');
    return w;
  }

  levels(): Promise<LevelInfo[]> {
    return this.reader.call<LevelInfo[]>({ op: 'levels' });
  }
  transactions(begin: number, end: number): Promise<Txn[]> {
    return this.reader.call<Txn[]>({ op: 'transactions', begin, end });
  }
  sessions(): Promise<SessionRange[]> {
    return this.reader.call<SessionRange[]>({ op: 'sessions' });
  }
  timeline(): Promise<TimelineData> {
    return this.reader.call<TimelineData>({ op: 'timeline' });
  }
  readers(txn: number): Promise<WriteReaders[]> {
    return this.reader.call<WriteReaders[]>({ op: 'readers', txn });
  }
  /** Transactions by label, then by a key they touch (at most limit). */
  find(query: string, limit = 50): Promise<FoundTxn[]> {
    return this.reader.call<FoundTxn[]>({ op: 'find', query, limit });
  }
  convert(to: 'isoscope' | 'plume'): Promise<string> {
    return this.reader.call<string>({ op: 'convert', to });
  }
  /**
   * The reproducing counterexample of a level's anomaly, from the check worker (which holds the
   * decided levels): the core re-checks it (reproduces) and shrinks it (minimal).
   */
  async counterexample(level: string, index: number, budgetMs = 5000): Promise<Counterexample> {
    if (!this.check) throw new Error('the check is no longer loaded: check again first');
    return this.check.call<Counterexample>({ op: 'counterexample', level, index, budgetMs });
  }

  get isRunning() {
    return this.running !== null;
  }

  /** Runs the levels one by one; returns when done or cancelled. Never throws. */
  async run(o: RunOptions): Promise<void> {
    if (this.running) this.cancel();
    const run = { cancelled: false as boolean, current: undefined as string | undefined, reason: undefined as string | undefined };
    this.running = run;
    for (const l of o.levels) o.onUpdate(l, { verdict: 'pending' });
    try {
      await this.ensureCheck();
    } catch (e) {
      for (const l of o.levels) o.onUpdate(l, { verdict: 'unknown', reason: run.cancelled ? run.reason ?? 'cancelled' : `checker failed: ${(e as Error).message}` });
      if (this.running === run) this.running = null;
      return;
    }
    // The core's order (weak levels first, then the strong ones strongest first): a strong
    // level's pass then decides the weaker ones at once (the core reports them implied).
    let levels = o.levels;
    try {
      levels = inCheckOrder(o.levels, await this.check!.call<LevelInfo[]>({ op: 'levels' }));
    } catch { /* the order is an optimisation: keep the given one */ }
    const unknownHere: string[] = [], failedHere: string[] = [];
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i];
      if (run.cancelled) { o.onUpdate(level, { verdict: 'unknown', reason: run.reason ?? 'cancelled' }); continue; }
      run.current = level;
      o.onUpdate(level, { verdict: 'running' });
      const w = this.check!;
      const watchdogMs = o.budgetMs + Math.max(5000, o.budgetMs);
      let timer = 0;
      try {
        const res = await Promise.race([
          w.call<LevelResult>({ op: 'checkLevel', level, budgetMs: o.budgetMs, maxAnomalies: o.maxAnomalies }, [],
            (progress) => o.onUpdate(level, { verdict: 'running', progress })),
          new Promise<never>((_, rej) => { timer = window.setTimeout(() => rej(new Error('watchdog')), watchdogMs); }),
        ]);
        o.onUpdate(level, res);
        if (res.verdict === 'unknown') unknownHere.push(level);
        if (res.verdict === 'fail' && !res.implied_by) failedHere.push(level);
        if (res.verdict === 'pass' && !res.implied_by) {
          // A level left unknown earlier in this run holds after all (as the core reports it).
          for (const weaker of unknownHere.filter((l) => implies(level, l)))
            o.onUpdate(weaker, { verdict: 'pass', ms: 0, reason: `implied by the ${level} pass`, implied_by: level });
          // The core names the failing levels decided before this pass again (no anomaly of a
          // kind a passing level forbids: SSER's cycle is no WriteSkew once SER passes), and
          // counterexample() reads their anomalies as they now stand.
          for (const failed of failedHere) o.onUpdate(failed, await w.call<LevelResult>({ op: 'levelResult', level: failed }));
        }
      } catch (e) {
        if (e instanceof CancelledError || run.cancelled) {
          o.onUpdate(level, { verdict: 'unknown', reason: run.reason ?? 'cancelled' });
        } else if ((e as Error).message === 'watchdog') {
          this.respawnCheck('time budget exceeded');
          o.onUpdate(level, { verdict: 'unknown', reason: 'time budget exceeded (the check was stopped)' });
          unknownHere.push(level);
        } else {
          // the core crashed on this level (e.g. out of memory): report it, keep going
          this.respawnCheck('crashed');
          o.onUpdate(level, { verdict: 'unknown', reason: `the checker failed: ${(e as Error).message}` });
          unknownHere.push(level);
          try { await this.ensureCheck(); } catch { /* reported on the next level */ }
        }
      } finally {
        clearTimeout(timer);
      }
    }
    if (this.running === run) this.running = null;
  }

  private respawnCheck(reason: string) {
    this.check?.terminate(reason);
    this.check = null;
    this.checkLoaded = null;
  }

  /** Stops the running check at once: terminates the check worker (a new one loads lazily). */
  cancel(reason = 'cancelled') {
    if (this.running) { this.running.cancelled = true; this.running.reason = reason; }
    this.respawnCheck(reason);
    this.running = null;
    // warm up a fresh worker so "Check again" starts immediately (and, without a data worker,
    // so the history view has a reader again)
    if (this.files.length) this.ensureCheck().catch(() => {});
  }

  dispose() {
    if (this.running) this.running.cancelled = true;
    this.running = null;
    this.data?.terminate('replaced');
    this.check?.terminate('replaced');
    this.data = this.check = null;
    this.checkLoaded = null;
  }
}
