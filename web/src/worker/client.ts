// Promise-based RPC to a core worker, with termination (cancel) and crash reporting.
import { CoreCrash, CoreFailure } from '../core/result';
import coreWorkerUrl from './core.worker.ts?worker&url';
import type { Envelope, InFile, Progress, Reply, Request } from './protocol';

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

export class CoreWorker {
  private worker: Worker;
  private next = 1;
  private pending = new Map<number, Pending>();
  dead = false;

  constructor(private readonly name: string) {
    this.worker = startWorker(new URL(coreWorkerUrl, import.meta.url), name);
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
      this.worker.postMessage({ id, ...req } as Envelope, transfer);
    });
  }

  terminate(reason = 'cancelled') {
    this.worker.terminate();
    this.dead = true;
    for (const p of this.pending.values()) p.reject(new CancelledError(reason));
    this.pending.clear();
  }
}

/** Copies of the input (kept by the page so that a respawned worker can re-load it). */
export function copyFiles(files: InFile[]): InFile[] {
  return files.map((f) => ({ name: f.name, data: f.data.slice(0) }));
}
