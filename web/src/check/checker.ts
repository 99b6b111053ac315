// Orchestrates the core workers: a check worker (the input's statistics, checkLevel level by
// level) and, while a check runs, a data worker (the history view, conversion) so that reading
// the history never waits behind a long level. Cancelling terminates the check worker and
// respawns it. The check worker parses the input first and its check starts at once; the data
// worker parses its own copy only once a check has run for DATA_WORKER_AFTER_MS or the page
// reads the history during a check (on 1,000-transaction histories the second parse, in
// parallel on a 2-core machine, delayed the verdict more than the check took). Otherwise the
// check worker serves the reads. A wasm heap never shrinks (a 240 MB input, 10^7 operations,
// leaves a 2.1 GB heap behind): inputs over SHARED_WORKER_BYTES never get a data worker.
import type { Counterexample, FoundTxn, NamesJson, HistoryPartJson, InputStats, LevelInfo, Txn, SessionRange, WriteReaders } from '../core/types';
import type { TimelineData } from '../model/timeline';
import { CancelledError, copyFiles, releaseCoreWorker, takeCoreWorker, type CoreWorker } from '../worker/client';
import type { InFile } from '../worker/protocol';
import { implies, inCheckOrder, type LevelState } from '../model/levels';

/** Above this input size one worker holds the history (see the header). */
export const SHARED_WORKER_BYTES = 100_000_000;
/** A check that runs this long starts the data worker (see the header). */
export const DATA_WORKER_AFTER_MS = 300;

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
  /** The check worker has loaded the input (run() then asks for its first level at once). */
  private checkReady = false;
  /** The levels of the loaded input (the core's order and applicability), asked once a load. */
  private infos: Promise<LevelInfo[]> | null = null;
  private levelInfos: LevelInfo[] | null = null;
  private files: InFile[] = [];
  private bytes = 0;
  private format = '';
  private running: { cancelled: boolean; current?: string; reason?: string } | null = null;

  constructor(private readonly useDataWorker = true) {}

  /** Formats are told by names and first bytes: what histories() needs of each file. */
  static readonly HEAD_BYTES = 1 << 16;
  /**
   * The histories of a set (dbcop's hist-00000/ folders, two EDN files, ...), each to be loaded
   * on its own; [] when the files hold one history (formats/history_set.h decides). Asked of
   * the spare worker, which stays the spare (and then loads the input).
   */
  async histories(files: InFile[]): Promise<HistoryPartJson[]> {
    if (files.length < 2) return [];
    const probe = takeCoreWorker('probe');
    const heads = files.map((f) => ({ name: f.name, data: f.data.slice(0, Checker.HEAD_BYTES) }));
    try {
      return await probe.call({ op: 'histories', files: heads }, heads.map((f) => f.data));
    } finally {
      releaseCoreWorker(probe, 0);  // it holds what it held before (heads are not loaded)
    }
  }

  /** Parses the input in the check worker; a bad input rejects with a CoreFailure. */
  async load(files: InFile[], format = ''): Promise<InputStats> {
    this.dispose();
    this.files = files;
    this.format = format;
    this.bytes = files.reduce((n, f) => n + f.data.byteLength, 0);
    return this.ensureCheck();
  }

  private ensureCheck(): Promise<InputStats> {
    if (this.check && !this.check.dead && this.checkLoaded) return this.checkLoaded;
    const w = (this.check = takeCoreWorker('check'));
    const copy = copyFiles(this.files);
    this.checkReady = false;
    this.checkLoaded = w.call({ op: 'load', files: copy, format: this.format }, copy.map((f) => f.data));
    this.checkLoaded.then(() => { if (this.check === w) this.checkReady = true; }, () => {});
    return this.checkLoaded;
  }

  /** Starts the data worker (see the header), once a load; false when the input gets none. */
  private startData(): boolean {
    if (this.data) return true;
    if (!this.useDataWorker || this.bytes > SHARED_WORKER_BYTES || !this.files.length) return false;
    this.data = takeCoreWorker('data');
    const copy = copyFiles(this.files);
    // its error, if any, is the check worker's to report (the same input): reads then fail
    this.data.call({ op: 'load', files: copy, format: this.format }, copy.map((f) => f.data)).catch(() => {});
    return true;
  }

  /** The worker that reads the history: the check worker, unless it is checking (see the header). */
  private get reader(): CoreWorker {
    if (!this.data && this.running && this.check && !this.check.idle) this.startData();
    if (this.data) return this.data;
    if (!this.files.length) throw new Error('nothing loaded');
    void this.ensureCheck().catch(() => {});
    return this.check!;
  }

  /** The levels of the loaded input (the core's order; those that apply to it). */
  levels(): Promise<LevelInfo[]> {
    if (!this.infos) {
      const infos = (this.infos = this.reader.call({ op: 'levels' }));
      infos.then((v) => { if (this.infos === infos) this.levelInfos = v; }, () => { if (this.infos === infos) this.infos = null; });
    }
    return this.infos;
  }
  transactions(begin: number, end: number): Promise<Txn[]> {
    return this.reader.call({ op: 'transactions', begin, end });
  }
  sessions(): Promise<SessionRange[]> {
    return this.reader.call({ op: 'sessions' });
  }
  timeline(): Promise<TimelineData> {
    return this.reader.call({ op: 'timeline' });
  }
  readers(txn: number): Promise<WriteReaders[]> {
    return this.reader.call({ op: 'readers', txn });
  }
  /** Transactions by label, then by a key they touch (at most limit). */
  find(query: string, limit = 50): Promise<FoundTxn[]> {
    return this.reader.call({ op: 'find', query, limit });
  }
  /** The long keys, values and ids whole (each once), asked for once per history. */
  names(): Promise<NamesJson> {
    return (this.namesWhole ??= this.reader.call({ op: 'names' }));
  }
  private namesWhole: Promise<NamesJson> | null = null;
  convert(to: 'isoscope' | 'plume'): Promise<string> {
    return this.reader.call({ op: 'convert', to });
  }
  /**
   * The reproducing counterexample of a level's anomaly, from the check worker (which holds the
   * decided levels): the core re-checks it (reproduces) and shrinks it (minimal).
   */
  async counterexample(level: string, index: number, budgetMs = 5000): Promise<Counterexample> {
    if (!this.check) throw new Error('the check is no longer loaded: check again first');
    return this.check.call({ op: 'counterexample', level, index, budgetMs });
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
    // A loaded input asks for its first level before run() returns (the page then draws while
    // the worker checks), without waiting for a message.
    try {
      if (!this.checkReady || !this.check || this.check.dead) await this.ensureCheck();
    } catch (e) {
      for (const l of o.levels) o.onUpdate(l, { verdict: 'unknown', reason: run.cancelled ? run.reason ?? 'cancelled' : `checker failed: ${(e as Error).message}` });
      if (this.running === run) this.running = null;
      return;
    }
    // The core's order (weak levels first, then the strong ones strongest first): a strong
    // level's pass then decides the weaker ones at once (the core reports them implied).
    let levels = o.levels;
    try {
      levels = inCheckOrder(o.levels, this.levelInfos ?? await this.levels());
    } catch { /* the order is an optimisation: keep the given one */ }
    // a check that runs long gets the data worker, so that reading the history never waits for it
    const dataTimer = window.setTimeout(() => { if (this.running === run) this.startData(); }, DATA_WORKER_AFTER_MS);
    const unknownHere: string[] = [], failedHere: string[] = [];
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i];
      if (run.cancelled) { o.onUpdate(level, { verdict: 'unknown', reason: run.reason ?? 'cancelled' }); continue; }
      run.current = level;
      const w = this.check!;
      const watchdogMs = o.budgetMs + Math.max(5000, o.budgetMs);
      let timer = 0;
      try {
        // asked for before the page shows the level running: the worker starts while it draws
        const checked = w.call({ op: 'checkLevel', level, budgetMs: o.budgetMs, maxAnomalies: o.maxAnomalies }, [],
          (progress) => o.onUpdate(level, { verdict: 'running', progress }));
        o.onUpdate(level, { verdict: 'running' });
        const res = await Promise.race([
          checked,
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
          for (const failed of failedHere) o.onUpdate(failed, await w.call({ op: 'levelResult', level: failed }));
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
    clearTimeout(dataTimer);
    if (this.running === run) this.running = null;
  }

  private respawnCheck(reason: string) {
    this.check?.terminate(reason);
    this.check = null;
    this.checkLoaded = null;
    this.checkReady = false;
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

  /** Lets the workers go: an idle one holding a small input is kept as the spare (client.ts). */
  dispose() {
    if (this.running) this.running.cancelled = true;
    this.running = null;
    if (this.check) releaseCoreWorker(this.check, this.bytes);
    if (this.data) releaseCoreWorker(this.data, this.bytes);
    this.data = this.check = null;
    this.checkLoaded = null;
    this.checkReady = false;
    this.infos = null;
    this.namesWhole = null;
    this.levelInfos = null;
  }
}
