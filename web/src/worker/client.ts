// Promise-based RPC to a core worker, with termination (cancel) and crash reporting.
import { CoreCrash, CoreFailure } from '../core/result';
import { coreModule } from '../core/wasm-module';
import coreWorkerUrl from './core.worker.ts?worker&url';
import type { Envelope, InFile, Init, Progress, Reply, ReplyTo, Request } from './protocol';
import { WARM_UP_ROUND_STEPS } from './warm-up';

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; onProgress?: (p: Progress) => void };

/**
 * A module worker from `url`. Workers must come from the page's origin: when embed.js was
 * loaded from another origin (a documentation site embedding the checker), a blob worker of
 * the page's origin imports the real one, which the bundle's host serves with CORS (as it
 * must for module scripts and the wasm anyway).
 */
function startWorker(url: URL, name: string): Worker {
  if (url.origin === location.origin) return new Worker(url, { type: 'module', name });
  const shim = new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(shim), { type: 'module', name });
}

export class CancelledError extends Error {
  constructor(msg = 'cancelled') { super(msg); this.name = 'CancelledError'; }
}

export class CoreWorker {
  private worker: Worker;
  private next = 1;
  private pending = new Map<number, Pending>();
  /** Requests made before the worker was sent the page's compiled module (sent after it, in order). */
  private queued: (() => void)[] | null = [];
  dead = false;

  constructor(private name: string) {
    this.worker = startWorker(new URL(coreWorkerUrl, import.meta.url), name);
    void coreModule().then((module) => {
      if (this.dead) return;
      try {
        this.worker.postMessage({ init: module } satisfies Init);
      } catch {
        this.worker.postMessage({ init: null } satisfies Init);  // a module that cannot be sent: the worker compiles its own
      }
      const queued = this.queued ?? [];
      this.queued = null;
      for (const post of queued) post();
    });
    this.worker.onmessage = (ev: MessageEvent<Reply>) => {
      const r = ev.data;
      const p = this.pending.get(r.id);
      if (!p) return;
      if ('progress' in r) {
        p.onProgress?.(r.progress);
        return;
      }
      this.pending.delete(r.id);
      if (r.ok) p.resolve(r.result);
      else if (r.detail) p.reject(new CoreFailure(r.detail));
      else if (r.crashed) this.retire(new CoreCrash(r.error), p);
      else p.reject(new Error(r.error));
    };
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      this.fail(new CoreCrash(`the ${this.name} worker crashed: ${ev.message || 'unknown error'}`));
    };
    this.worker.onmessageerror = () => this.fail(new Error(`the ${this.name} worker sent an unreadable message`));
  }

  /** After a crash: rejects p and everything pending, and is never used again (dead). */
  private retire(e: CoreCrash, p: Pending) {
    p.reject(e);
    this.fail(e);
    this.worker.terminate();
  }

  private fail(e: Error) {
    this.dead = true;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  /** No request waits for its answer: the next one is served at once. */
  get idle(): boolean {
    return !this.dead && this.pending.size === 0;
  }

  /** The worker's role, as its errors name it (a spare worker takes the role it is given). */
  set role(name: string) {
    this.name = name;
  }

  /**
   * Sends a request: at once once the worker has the module (so that a check asked for before
   * the page draws runs while it draws), else right after it, in the order asked.
   */
  call<R extends Request>(req: R, transfer: Transferable[] = [], onProgress?: (p: Progress) => void): Promise<ReplyTo<R>> {
    if (this.dead) return Promise.reject(new Error(`the ${this.name} worker is gone`));
    const id = this.next++;
    return new Promise<ReplyTo<R>>((resolve, reject) => {
      // (the worker answers each op with its Replies type: core.worker.ts)
      this.pending.set(id, { resolve: (v) => resolve(v as ReplyTo<R>), reject, onProgress });
      const post = () => { if (!this.dead) this.worker.postMessage({ id, ...req } as Envelope, transfer); };
      if (this.queued) this.queued.push(post);
      else post();
    });
  }

  terminate(reason = 'cancelled') {
    this.worker.terminate();
    this.dead = true;
    for (const p of this.pending.values()) p.reject(new CancelledError(reason));
    this.pending.clear();
  }
}

/**
 * A core worker started ahead of need, its module instantiated, with no request in hand: the
 * warm-up's worker, then a checker's worker it no longer needs. A worker takes 20-250 ms to
 * start (its thread, its script, its core's instance: the more so with the others busy on a
 * 2-core machine), which was most of the wait from a dropped 1,000-transaction history to
 * its verdict; a spare starts the check at once.
 */
let spare: CoreWorker | null = null;

/**
 * Inputs up to this size leave a core heap small enough to keep their worker as the spare (a
 * wasm heap never shrinks: about 9 bytes of heap a byte of input, on top of its first 64 MB).
 */
export const SPARE_MAX_BYTES = 8 << 20;

/** A core worker for `role`: the spare if there is one (stopping the warm-up), else a new one. */
export function takeCoreWorker(role: string): CoreWorker {
  warmUpStarted = true;  // a page that has started checking has no use for a warm-up
  warmingUp = false;
  const w = spare;
  spare = null;
  if (w && !w.dead) {
    w.role = role;
    return w;
  }
  return new CoreWorker(role);
}

/**
 * Gives back a worker its checker no longer needs: kept as the spare when it is idle, holds an
 * input of at most SPARE_MAX_BYTES and there is no spare yet (the next input replaces its
 * history), else terminated.
 */
export function releaseCoreWorker(w: CoreWorker, heldBytes: number, reason = 'replaced'): void {
  if (w === spare) return;
  if (w.idle && heldBytes <= SPARE_MAX_BYTES && (!spare || spare.dead)) {
    w.role = 'spare';
    spare = w;
    return;
  }
  w.terminate(reason);
}

let warmUpStarted = false;
/** The warm-up runs its steps (until a checker takes a worker). */
let warmingUp = false;
/** The warm-up waits out WARM_UP_DELAY_MS. */
let warmUpPending = false;

/**
 * How long the page waits for a file before it warms up. A file dropped sooner gains little
 * from a warm-up cut short (V8 optimises over seconds), and the page's own loading (its
 * scripts, fonts and examples) has the cores to itself meanwhile.
 */
export const WARM_UP_DELAY_MS = 1000;

/**
 * Starts the built-in warm-up (warm-up.ts), once per page and only while no checker has taken a
 * worker: V8 optimises the hot functions of the shared module while the page waits for a file,
 * and the user's first check runs optimised code. The module compiles at once; the warm-up
 * starts after WARM_UP_DELAY_MS if no checker has taken a worker by then. Its worker is the
 * spare, which runs the warm-up a step at a time while it stays the spare: the first checker to
 * take it stops the warm-up after the step in hand (a few milliseconds to a few tens) and checks
 * in it. The start is marked 'isoscope:warm-up-start'; the outcome is recorded as the
 * performance measure 'isoscope:warm-up' (detail: done with its rounds' times, stopped, or
 * failed): a failed warm-up costs nothing but time.
 */
export function startWarmUp(rounds = 3, delayMs = WARM_UP_DELAY_MS): void {
  if (warmUpStarted || warmUpPending) return;
  warmUpPending = true;
  void coreModule();
  setTimeout(() => {
    warmUpPending = false;
    if (!warmUpStarted) runWarmUp(rounds);
  }, delayMs);
}

function runWarmUp(rounds: number): void {
  warmUpStarted = warmingUp = true;
  try { performance.mark('isoscope:warm-up-start'); } catch { /* no user timing */ }
  const w = (spare = new CoreWorker('warm-up'));
  const start = performance.now();
  const record = (detail: object) => { try { performance.measure('isoscope:warm-up', { start, detail }); } catch { /* no user timing */ } };
  void (async () => {
    const ms: number[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        const t0 = performance.now();
        for (let k = 0; k < WARM_UP_ROUND_STEPS; k++) {
          if (!warmingUp) { record({ outcome: 'stopped', rounds: round, ms }); return; }
          await w.call({ op: 'warmUp', step: round * WARM_UP_ROUND_STEPS + k });
        }
        ms.push(Math.round(performance.now() - t0));
      }
      record({ outcome: 'done', rounds, ms });
    } catch (e) {
      record({ outcome: !warmingUp || e instanceof CancelledError ? 'stopped' : 'failed', error: String(e) });
    }
  })();
}

/** Copies of the input (kept by the page so that a respawned worker can re-load it). */
export function copyFiles(files: InFile[]): InFile[] {
  return files.map((f) => ({ name: f.name, data: f.data.slice(0) }));
}
