/// <reference lib="webworker" />
// Runs elkjs off the main thread: receives an ELK graph, returns node x positions.
import ELK from 'elkjs/lib/elk.bundled.js';
import type { LayoutReply, LayoutRequest } from './layout';

const elk = new ELK();

self.onmessage = async (ev: MessageEvent<LayoutRequest>) => {
  const { id, graph } = ev.data;
  const reply = (r: LayoutReply) => (self as unknown as Worker).postMessage(r);
  try {
    const out = await elk.layout(graph);
    const xs: Record<string, number> = {};
    for (const c of out.children ?? []) xs[c.id] = c.x ?? 0;
    reply({ id, ok: true, xs });
  } catch (e) {
    reply({ id, ok: false, error: String(e) });
  }
};
