// Client of the ELK layout worker, with a plain fallback when the worker fails or is slow.
import type { ElkNode } from 'elkjs/lib/elk-api';
import { placeInLanes, toElkGraph, type Diagram } from './model';

/** A message to the layout worker (layout.worker.ts), and its reply: each node's x, by ELK id. */
export interface LayoutRequest { id: number; graph: ElkNode }
export type LayoutReply = { id: number; ok: true; xs: Record<string, number> } | { id: number; ok: false; error: string };

let worker: Worker | null = null;
let next = 1;
const pending = new Map<number, (xs: Record<string, number> | null) => void>();

function getWorker(): Worker {
  if (worker) return worker;
  worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module', name: 'layout' });
  worker.onmessage = (ev: MessageEvent<LayoutReply>) => {
    const r = ev.data;
    const p = pending.get(r.id);
    pending.delete(r.id);
    p?.(r.ok ? r.xs : null);
  };
  worker.onerror = (ev) => {
    ev.preventDefault();
    for (const p of pending.values()) p(null);
    pending.clear();
    worker?.terminate();
    worker = null;
  };
  return worker;
}

export async function layout(d: Diagram, timeoutMs = 8000): Promise<Diagram> {
  const id = next++;
  const xs = await new Promise<Record<string, number> | null>((resolve) => {
    const timer = setTimeout(() => { pending.delete(id); resolve(null); }, timeoutMs);
    pending.set(id, (v) => { clearTimeout(timer); resolve(v); });
    try {
      const request: LayoutRequest = { id, graph: toElkGraph(d) };
      getWorker().postMessage(request);
    } catch {
      resolve(null);
    }
  });
  const m = new Map<number, number>();
  d.nodes.forEach((n) => m.set(n.i, xs ? xs[`n${n.i}`] ?? 0 : n.i * 300));
  return placeInLanes(d, m);
}
