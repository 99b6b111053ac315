/// <reference lib="webworker" />
// Runs elkjs off the main thread: receives an ELK graph, returns node x positions.
import ELK from 'elkjs/lib/elk.bundled.js';

const elk = new ELK();

self.onmessage = async (ev: MessageEvent<{ id: number; graph: any }>) => {
  const { id, graph } = ev.data;
  try {
    const out = await elk.layout(graph);
    const xs: Record<string, number> = {};
    for (const c of out.children ?? []) xs[c.id] = c.x ?? 0;
    (self as unknown as Worker).postMessage({ id, ok: true, xs });
  } catch (e) {
    (self as unknown as Worker).postMessage({ id, ok: false, error: String(e) });
  }
};
