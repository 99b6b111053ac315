// The anomaly diagram's model (pure): witness transactions with the operations to draw, the
// edges anchored at operations, the lane layout after ELK, and DOT export.
import type { ElkNode } from 'elkjs/lib/elk-api';
import type { Anomaly, Key, Op, Txn, Value } from '../core/types';
import { fmtOp, keyId, keyText } from '../model/ops';
import type { Names } from '../model/names';

export const EDGE_TYPES = ['SO', 'WR', 'WW', 'RW', 'RT', 'CO'] as const;

export const NODE_W = 188;
export const HEADER_H = 40;  // two lines: the user's id (or T-number), then number, session and position
export const ROW_H = 20;
export const PAD_B = 8;
export const MAX_ROWS = 14;

export interface Row { op?: number; text: string; kind: 'op' | 'gap' }

export interface DNode {
  i: number; // index in anomaly.transactions
  txn: number;
  session: number;
  index: number;
  label: string; // the user's id when it has one, else "T5"
  sub: string; // "T5 · session 0 · #3"
  status: string;
  rows: Row[];
  opRow: Map<number, number>; // op position -> row
  w: number;
  h: number;
  x: number;
  y: number;
}

export interface DEdge {
  from: number;
  to: number;
  type: string;
  key?: Key;
  fromOp?: number;
  toOp?: number;
  why?: string;
  implicit?: boolean; // added session order
}

export interface Diagram {
  nodes: DNode[];
  edges: DEdge[];
  lanes: { session: number; y: number; h: number }[];
  width: number;
  height: number;
}

function clip(s: string, n: number) {
  return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
}

/** Rows to draw: every op when few, else the anchored ops with gaps collapsed. */
export function chooseRows(ops: Op[], anchored: Set<number>): Row[] {
  if (ops.length <= MAX_ROWS) return ops.map((op, i) => ({ op: i, text: clip(fmtOp(op), 30), kind: 'op' as const }));
  const keep = new Set<number>([0, ops.length - 1]);
  for (const a of anchored) if (a >= 0 && a < ops.length) keep.add(a);
  const idx = [...keep].sort((a, b) => a - b).slice(0, MAX_ROWS * 4);
  const rows: Row[] = [];
  let prev = -1;
  for (const i of idx) {
    if (i > prev + 1) rows.push({ kind: 'gap', text: `\u2026 ${i - prev - 1} more` });
    rows.push({ op: i, text: clip(fmtOp(ops[i]), 30), kind: 'op' });
    prev = i;
  }
  return rows;
}

/** The initial transaction (txn 0) comes with session/index null: it gets lane -1. */
function normalize(a: Anomaly): Anomaly {
  return {
    ...a,
    transactions: a.transactions.map((t) => ({
      ...t,
      session: typeof t.session === 'number' ? t.session : -1,
      index: typeof t.index === 'number' ? t.index : 0,
    })),
  };
}

/** names: the history's (a counterexample's transactions keep their original numbers). */
export function buildDiagram(a0: Anomaly, txns: Map<number, Txn>, names: Names): Diagram {
  const a = normalize(a0);
  const edges: DEdge[] = (a.edges ?? [])
    .filter((e) => e.from >= 0 && e.from < a.transactions.length && e.to >= 0 && e.to < a.transactions.length)
    .map((e) => ({ from: e.from, to: e.to, type: String(e.type), key: e.key, fromOp: e.from_op, toOp: e.to_op, why: e.why }));
  // session order between consecutive witnesses of one session, unless already drawn
  const bySession = new Map<number, number[]>();
  a.transactions.forEach((t, i) => {
    const l = bySession.get(t.session) ?? [];
    l.push(i);
    bySession.set(t.session, l);
  });
  for (const list of bySession.values()) {
    list.sort((x, y) => a.transactions[x].index - a.transactions[y].index);
    for (let j = 1; j < list.length; j++) {
      const [f, t] = [list[j - 1], list[j]];
      if (!edges.some((e) => e.from === f && e.to === t && e.type === 'SO')) edges.push({ from: f, to: t, type: 'SO', implicit: true });
    }
  }
  // The observations the story rests on: a witness transaction that reads a value another
  // witness transaction wrote gets that reads-from edge (writes are unique), unless drawn.
  const writerOf = new Map<string, number>();
  const opsOf = (i: number) => {
    const w = a.transactions[i];
    return (w.txn !== undefined ? txns.get(w.txn)?.ops : undefined) ?? [];
  };
  const kv = (k: Key, v: Value) => `${keyId(k)}\u0000${JSON.stringify(v)}`;
  a.transactions.forEach((_, i) => opsOf(i).forEach((op, oi) => {
    if (op[0] === 'w' || op[0] === 'append') writerOf.set(kv(op[1], op[2]), i * 65536 + oi);
  }));
  a.transactions.forEach((_, i) => opsOf(i).forEach((op, oi) => {
    if (op[0] !== 'r') return;
    const v = Array.isArray(op[2]) ? op[2][op[2].length - 1] : op[2];
    const w = v === undefined ? undefined : writerOf.get(kv(op[1], v));
    if (w === undefined) return;
    const from = Math.floor(w / 65536);
    if (from === i || edges.some((e) => e.from === from && e.to === i && e.type === 'WR')) return;
    edges.push({ from, to: i, type: 'WR', key: op[1], fromOp: w % 65536, toOp: oi, implicit: true, why: 'reads a value it wrote' });
  }));
  const nodes: DNode[] = a.transactions.map((w, i) => {
    const t = w.txn !== undefined ? txns.get(w.txn) : undefined;
    const ops = t?.ops ?? [];
    const anchored = new Set<number>();
    for (const e of edges) {
      if (e.from === i && e.fromOp !== undefined) anchored.add(e.fromOp);
      if (e.to === i && e.toOp !== undefined) anchored.add(e.toOp);
    }
    const rows: Row[] = w.session < 0 && ops.length === 0 ? [{ kind: 'gap', text: 'initial values' }] : chooseRows(ops, anchored);
    const opRow = new Map<number, number>();
    rows.forEach((r, ri) => { if (r.op !== undefined) opRow.set(r.op, ri); });
    const id = w.id ?? t?.id;
    return {
      i, txn: w.txn ?? -1, session: w.session, index: w.index,
      label: w.session < 0 ? 'T0' : id !== undefined && id !== '' ? clip(String(id), 24) : w.txn !== undefined ? names.txnName(w.txn) : `s${names.sessionNumber(w.session)}#${w.index}`,
      sub: clip(w.session < 0 ? 'initial state'
        : [id !== undefined && id !== '' && w.txn !== undefined ? names.txnName(w.txn) : '', `session ${names.sessionNumber(w.session)}`, `#${names.positionOf(w.txn, w.index)}`].filter(Boolean).join(' \u00b7 '), 32),
      status: t?.status ?? 'committed',
      rows, opRow,
      w: NODE_W, h: HEADER_H + Math.max(1, rows.length) * ROW_H + PAD_B, x: 0, y: 0,
    };
  });
  return { nodes, edges, lanes: [], width: 0, height: 0 };
}

/** ELK input graph: one node per transaction, edges between them. */
export function toElkGraph(d: Diagram): ElkNode {
  return {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.layered.spacing.nodeNodeBetweenLayers': '90',
      'elk.spacing.nodeNode': '40',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
    },
    children: d.nodes.map((n) => ({ id: `n${n.i}`, width: n.w, height: n.h })),
    edges: d.edges.map((e, k) => ({ id: `e${k}`, sources: [`n${e.from}`], targets: [`n${e.to}`] })),
  };
}

export const LANE_GAP = 28;
export const LANE_PAD = 22;
export const LANE_LABEL_W = 96;
export const COL_GAP = 90;

/**
 * Places nodes in session lanes (one row per session, in session order) keeping ELK's
 * left-to-right order; within a lane, session order and no overlap are enforced.
 */
export function placeInLanes(d: Diagram, elkX: Map<number, number>): Diagram {
  const sessions = [...new Set(d.nodes.map((n) => n.session))].sort((a, b) => a - b);
  // column order from ELK x, ties broken by session order
  const order = [...d.nodes].sort((a, b) => (elkX.get(a.i) ?? 0) - (elkX.get(b.i) ?? 0) || a.session - b.session || a.index - b.index);
  // compress ELK's layers into columns, then enforce per-lane session order
  const col = new Map<number, number>();
  let c = -1;
  let lastX = Number.NEGATIVE_INFINITY;
  for (const n of order) {
    const x = elkX.get(n.i) ?? 0;
    if (x > lastX + 1) { c++; lastX = x; }
    col.set(n.i, Math.max(c, 0));
  }
  for (const s of sessions) {
    const inLane = d.nodes.filter((n) => n.session === s).sort((a, b) => a.index - b.index);
    let min = -1;
    for (const n of inLane) {
      const cc = Math.max(col.get(n.i)!, min + 1);
      col.set(n.i, cc);
      min = cc;
    }
  }
  let y = LANE_PAD;
  const lanes: Diagram['lanes'] = [];
  for (const s of sessions) {
    const inLane = d.nodes.filter((n) => n.session === s);
    const h = Math.max(...inLane.map((n) => n.h)) + 2 * LANE_PAD;
    lanes.push({ session: s, y, h });
    for (const n of inLane) { n.y = y + LANE_PAD; n.x = LANE_LABEL_W + 24 + col.get(n.i)! * (NODE_W + COL_GAP); }
    y += h + LANE_GAP;
  }
  const width = Math.max(...d.nodes.map((n) => n.x + n.w), 200) + 40;
  return { ...d, lanes, width, height: y };
}

/** Anchor point of an edge end: the op row's middle, on the side facing the other end. */
export function anchor(n: DNode, op: number | undefined, side: 'l' | 'r'): { x: number; y: number } {
  const row = op !== undefined ? n.opRow.get(op) : undefined;
  const y = row !== undefined ? n.y + HEADER_H + row * ROW_H + ROW_H / 2 : n.y + HEADER_H / 2;
  return { x: side === 'l' ? n.x : n.x + n.w, y };
}

function dotEsc(s: string) {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export const EDGE_DOT_COLOR: Record<string, string> = {
  SO: '#6b7280', WR: '#2563eb', WW: '#d97706', RW: '#dc2626', RT: '#7c3aed', CO: '#0d9488',
};

export function toDot(d: Diagram, names: Names, title = 'anomaly'): string {
  const lines = [`digraph "${dotEsc(title)}" {`, '  rankdir=LR;', '  node [shape=box, fontname="Helvetica", fontsize=10];', '  edge [fontname="Helvetica", fontsize=9];'];
  const sessions = [...new Set(d.nodes.map((n) => n.session))].sort((a, b) => a - b);
  for (const s of sessions) {
    lines.push(`  subgraph "cluster_s${s}" {`, `    label="${s < 0 ? 'initial' : `session ${names.sessionNumber(s)}`}"; style=rounded; color="#cbd5e1";`);
    for (const n of d.nodes.filter((x) => x.session === s)) {
      const body = [n.label + (n.status !== 'committed' ? ` (${n.status})` : ''), ...n.rows.map((r) => r.text)].join('\\l') + '\\l';
      lines.push(`    n${n.i} [label="${dotEsc(body).replace(/\\\\l/g, '\\l')}"];`);
    }
    lines.push('  }');
  }
  for (const e of d.edges) {
    const label = e.key !== undefined ? `${e.type} ${keyText(e.key)}` : e.type;
    lines.push(`  n${e.from} -> n${e.to} [label="${dotEsc(label)}", color="${EDGE_DOT_COLOR[e.type] ?? '#111827'}"${e.type === 'SO' ? ', style=dashed' : ''}];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}

/** A label's box: centre (x, y), width and height. */
export interface LabelBox { x: number; y: number; w: number; h: number }

/**
 * Moves edge labels apart so that no two overlap: each label, in order, goes to the nearest free
 * spot above or below its anchor (the anchor first). Pure, O(n^2) for the few dozen labels a
 * witness has.
 */
export function placeLabels(boxes: LabelBox[], gap = 2, obstacles: LabelBox[] = []): LabelBox[] {
  const placed: LabelBox[] = [];
  // labels never cover each other, nor a transaction's box (its operations' text)
  const over = (p: LabelBox, b: LabelBox) => Math.abs(p.x - b.x) * 2 < p.w + b.w + gap && Math.abs(p.y - b.y) * 2 < p.h + b.h + gap;
  for (const b of boxes) {
    // a label moves only vertically: what overlaps its column is all it can hit
    const column = (o: LabelBox) => Math.abs(o.x - b.x) * 2 < o.w + b.w + gap;
    const near = [...placed.filter(column), ...obstacles.filter(column)];
    const hits = (c: LabelBox) => near.some((o) => over(o, c));
    let at = b;
    for (let step = 1; hits(at) && step < 400; step++) {
      const dy = Math.ceil(step / 2) * (b.h + gap) * (step % 2 ? 1 : -1);
      at = { ...b, y: b.y + dy };
    }
    placed.push(at);
  }
  return placed;
}
