// Promise-based RPC to a core worker, with termination (cancel) and crash reporting.
import { CoreCrash, CoreFailure } from '../core/result';
import { coreModule } from '../core/wasm-module';
import coreWorkerUrl from './core.worker.ts?worker&url';
import type { Envelope, InFile, Init, Progress, Reply, Request } from './protocol';
import type { WarmUpReport } from './warm-up';

type Pending = { resolve: (v: any) => void; reject: (e: Error) => void; onProgress?: (p: Progress) => void };

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

const WARM_UP = 'warm-up';

export class CoreWorker {
  private worker: Worker;
  private next = 1;
  private pending = new Map<number, Pending>();
  /** Resolves once the worker has been sent the page's compiled module (requests follow it). */
  private ready: Promise<void>;
  dead = false;

  constructor(private readonly name: string) {
    if (name !== WARM_UP) stopWarmUp();
    this.worker = startWorker(new URL(coreWorkerUrl, import.meta.url), name);
    this.ready = coreModule().then((module) => {
      if (this.dead) return;
      try {
        this.worker.postMessage({ init: module } satisfies Init);
      } catch {
        this.worker.postMessage({ init: null } satisfies Init);  // a module that cannot be sent: the worker compiles its own
      }
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

  call<T = unknown>(req: Request, transfer: Transferable[] = [], onProgress?: (p: Progress) => void): Promise<T> {
    if (this.dead) return Promise.reject(new Error(`the ${this.name} worker is gone`));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      void this.ready.then(() => { if (!this.dead) this.worker.postMessage({ id, ...req } as Envelope, transfer); });
    });
  }

  terminate(reason = 'cancelled') {
    this.worker.terminate();
    this.dead = true;
    for (const p of this.pending.values()) p.reject(new CancelledError(reason));
    this.pending.clear();
  }
}

let warmUpStarted = false;
let warming: CoreWorker | null = null;

/**
 * Starts the built-in warm-up (warm-up.ts) in a worker of its own, once per page and only
 * while no other core worker has started: V8 optimises the hot functions of the shared module
 * while the page waits for a file, and the user's first check runs optimised code. The first
 * core worker made for the user stops it at once (terminated: a request never waits behind
 * it). Its outcome is only recorded, as the performance measure 'isoscope:warm-up' (detail:
 * done with its rounds' times, stopped, or failed): a failed warm-up costs nothing but time.
 */
export function startWarmUp(rounds = 3): void {
  if (warmUpStarted) return;
  warmUpStarted = true;
  const w = (warming = new CoreWorker(WARM_UP));
  const start = performance.now();
  const record = (detail: object) => { try { performance.measure('isoscope:warm-up', { start, detail }); } catch { /* no user timing */ } };
  w.call<WarmUpReport>({ op: 'warmUp', rounds }).then(
    (report) => record({ outcome: 'done', ...report }),
    (e) => record({ outcome: e instanceof CancelledError ? 'stopped' : 'failed', error: String(e) }),
  ).finally(() => {
    w.terminate('warmed up');
    if (warming === w) warming = null;
  });
}

function stopWarmUp() {
  warmUpStarted = true;  // a page that has started checking has no use for a warm-up
  warming?.terminate('a history arrived');
  warming = null;
}

/** Copies of the input (kept by the page so that a respawned worker can re-load it). */
export function copyFiles(files: InFile[]): InFile[] {
  return files.map((f) => ({ name: f.name, data: f.data.slice(0) }));
}
