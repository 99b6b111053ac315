// Draws a laid-out anomaly diagram as SVG with pan/zoom, and exports SVG/PNG/DOT.
import { keyText } from '../model/ops';
import { anchor, EDGE_TYPES, HEADER_H, LANE_LABEL_W, placeLabels, ROW_H, type DEdge, type Diagram, type DNode, type LabelBox } from './model';
import { s } from '../dom/dom';
import type { Names } from '../model/names';

export interface Palette {
  bg: string; lane: string; laneText: string; node: string; nodeBorder: string; header: string; text: string; muted: string;
  edge: Record<string, string>; hilite: string;
}

export function palette(): Palette {
  const cs = getComputedStyle(document.documentElement);
  const v = (n: string, d: string) => cs.getPropertyValue(n).trim() || d;
  return {
    bg: v('--surface', '#ffffff'), lane: v('--lane', '#f6f7f9'), laneText: v('--muted', '#6b7280'),
    node: v('--surface', '#ffffff'), nodeBorder: v('--border-strong', '#cbd5e1'), header: v('--node-header', '#f1f5f9'),
    text: v('--text', '#111827'), muted: v('--muted', '#6b7280'), hilite: v('--accent', '#4f46e5'),
    edge: Object.fromEntries(EDGE_TYPES.map((t) => [t, v(`--edge-${t.toLowerCase()}`, '#6b7280')])),
  };
}

/** Whether the cubic p c1 c2 q passes through a box other than a's and b's (sampled). */
function crossesBoxes(d: Diagram, a: DNode, b: DNode, p: Pt, c1: Pt, c2: Pt, q: Pt): boolean {
  for (let i = 1; i < 16; i++) {
    const t = i / 16, u = 1 - t;
    const x = u * u * u * p.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * q.x;
    const y = u * u * u * p.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * q.y;
    for (const n of d.nodes) if (n !== a && n !== b && x > n.x - 4 && x < n.x + n.w + 4 && y > n.y - 4 && y < n.y + n.h + 4) return true;
  }
  return false;
}
interface Pt { x: number; y: number }

function edgePath(d: Diagram, e: DEdge, k: number, off: number) {
  const a = d.nodes[e.from];
  const b = d.nodes[e.to];
  if (a === b) {
    const p = anchor(a, e.fromOp, 'r');
    const q = anchor(b, e.toOp, 'r');
    const bulge = 36 + 10 * (k % 3);
    return { path: `M${p.x},${p.y} C${p.x + bulge},${p.y} ${q.x + bulge},${q.y} ${q.x},${q.y}`, lx: p.x + bulge * 0.75, ly: (p.y + q.y) / 2 };
  }
  let sa: 'l' | 'r', sb: 'l' | 'r';
  if (a.x + a.w <= b.x) { sa = 'r'; sb = 'l'; }
  else if (b.x + b.w <= a.x) { sa = 'l'; sb = 'r'; }
  else { sa = 'r'; sb = 'r'; }
  const p = anchor(a, e.fromOp, sa);
  const q = anchor(b, e.toOp, sb);
  const dx = sa === sb ? 60 + 12 * (k % 4) : Math.max(40, Math.abs(q.x - p.x) * 0.4);
  const c1 = p.x + (sa === 'r' ? dx : -dx);
  const c2 = q.x + (sb === 'r' ? dx : -dx);
  // midpoint of the cubic at t = .5
  const c1y = p.y + off * 1.6;
  const c2y = q.y + off * 1.6;
  if (crossesBoxes(d, a, b, p, { x: c1, y: c1y }, { x: c2, y: c2y }, q)) {
    // around the boxes: out of the source, along the gap above (or below) the lanes in between,
    // into the target
    const between = d.nodes.filter((n) => n.x + n.w > Math.min(p.x, q.x) && n.x < Math.max(p.x, q.x));
    const pool = between.length ? between : d.nodes;
    const top = Math.min(...pool.map((n) => n.y));
    const bottom = Math.max(...pool.map((n) => n.y + n.h));
    const above = Math.abs(p.y - top) + Math.abs(q.y - top) <= Math.abs(p.y - bottom) + Math.abs(q.y - bottom);
    const yd = (above ? top - 14 - (k % 4) * 6 : bottom + 14 + (k % 4) * 6);
    const ox = sa === 'r' ? p.x + 24 : p.x - 24, ix = sb === 'r' ? q.x + 24 : q.x - 24;
    // turn into the gap just out of the source, run along it, turn down (or up) just before the target
    const dir = ix >= ox ? 1 : -1, r = Math.min(20, Math.abs(ix - ox) / 2);
    const path = `M${p.x},${p.y} C${ox},${p.y} ${ox},${yd} ${ox + dir * r},${yd} L${ix - dir * r},${yd} C${ix},${yd} ${ix},${q.y} ${q.x},${q.y}`;
    return { path, lx: (ox + ix) / 2, ly: yd };
  }
  const lx = 0.125 * p.x + 0.375 * c1 + 0.375 * c2 + 0.125 * q.x;
  const ly = 0.125 * p.y + 0.375 * c1y + 0.375 * c2y + 0.125 * q.y;
  return { path: `M${p.x},${p.y} C${c1},${c1y} ${c2},${c2y} ${q.x},${q.y}`, lx, ly };
}

/** Builds the SVG element (self-contained colours, so exports look the same); names: the history's. */
export function renderSvg(d: Diagram, pal: Palette, title: string, names: Names): SVGSVGElement {
  const W = d.width + 40;
  const H = d.height + 10;
  const svg = s('svg', { xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': title, 'font-family': 'Inter, system-ui, -apple-system, Segoe UI, sans-serif' });
  svg.append(s('title', {}, title));
  const defs = s('defs');
  for (const t of EDGE_TYPES)
    defs.append(s('marker', { id: `arrow-${t}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' },
      s('path', { d: 'M0,0 L10,5 L0,10 z', fill: pal.edge[t] })));
  svg.append(defs);
  svg.append(s('rect', { x: 0, y: 0, width: W, height: H, fill: pal.bg }));
  const root = s('g', { class: 'viewport' });
  svg.append(root);
  for (const lane of d.lanes) {
    root.append(s('rect', { x: 8, y: lane.y, width: W - 16, height: lane.h, rx: 10, fill: pal.lane }));
    root.append(s('text', { x: 24, y: lane.y + lane.h / 2, 'dominant-baseline': 'middle', fill: pal.laneText, 'font-size': 12, 'font-weight': 600, 'letter-spacing': '0.04em' },
      lane.session < 0 ? 'INITIAL' : `SESSION ${names.sessionNumber(lane.session)}`));
  }
  for (const n of d.nodes) {
    const g = s('g', { class: 'dnode', 'data-txn': n.txn });
    const dashed = n.status !== 'committed';
    g.append(s('rect', { x: n.x, y: n.y, width: n.w, height: n.h, rx: 8, fill: pal.node, stroke: pal.nodeBorder, 'stroke-width': 1.2, 'stroke-dasharray': dashed ? '5 3' : null }));
    g.append(s('path', { d: `M${n.x},${n.y + 8} a8,8 0 0 1 8,-8 h${n.w - 16} a8,8 0 0 1 8,8 v${HEADER_H - 8} h${-n.w} z`, fill: pal.header }));
    // the user's id leads; number, session and position on a line of their own (never overprinted)
    g.append(s('text', { x: n.x + 10, y: n.y + 17, fill: pal.text, 'font-size': 13, 'font-weight': 700 }, n.label));
    g.append(s('text', { x: n.x + 10, y: n.y + 32, fill: pal.muted, 'font-size': 10.5 }, dashed ? `${n.sub} \u00b7 ${n.status}` : n.sub));
    n.rows.forEach((r, ri) => {
      g.append(s('text', { x: n.x + 12, y: n.y + HEADER_H + ri * ROW_H + 14, fill: r.kind === 'gap' ? pal.muted : pal.text, 'font-size': 12, 'font-family': 'JetBrains Mono, SFMono-Regular, Menlo, Consolas, monospace', 'font-style': r.kind === 'gap' ? 'italic' : null }, r.text));
    });
    if (n.rows.length === 0) g.append(s('text', { x: n.x + 12, y: n.y + HEADER_H + 14, fill: pal.muted, 'font-size': 12, 'font-style': 'italic' }, 'no operations'));
    root.append(g);
  }
  const labels = s('g');
  // parallel edges between one pair of transactions fan out
  const groups = new Map<string, number[]>();
  d.edges.forEach((e, k) => { const key = `${Math.min(e.from, e.to)}-${Math.max(e.from, e.to)}`; groups.set(key, [...(groups.get(key) ?? []), k]); });
  const offsets: number[] = [];
  for (const ks of groups.values()) ks.forEach((k, r) => { offsets[k] = (r - (ks.length - 1) / 2) * 26; });
  const pending: { text: string; col: string; box: LabelBox }[] = [];
  d.edges.forEach((e, k) => {
    const { path, lx, ly } = edgePath(d, e, k, offsets[k]);
    const col = pal.edge[e.type] ?? pal.text;
    const g = s('g', { class: 'dedge', 'data-type': e.type });
    g.append(s('path', { d: path, fill: 'none', stroke: col, 'stroke-width': e.type === 'SO' ? 1.4 : 2, 'stroke-dasharray': e.type === 'SO' ? '5 4' : null, 'marker-end': `url(#arrow-${(EDGE_TYPES as readonly string[]).includes(e.type) ? e.type : 'SO'})` },
      s('title', {}, `${e.type}${e.key !== undefined ? ` on ${keyText(e.key)}` : ''}${e.why ? `: ${e.why}` : ''}`)));
    // anchor dots at the causing operations
    const mm = /M([\d.-]+),([\d.-]+)/.exec(path);
    if (mm) g.append(s('circle', { cx: mm[1], cy: mm[2], r: 3, fill: col }));
    root.append(g);
    const text = e.key !== undefined ? `${e.type} ${keyText(e.key)}` : e.type;
    pending.push({ text, col, box: { x: lx, y: ly, w: 8 + text.length * 6.6, h: 18 } });
  });
  // labels never overlap: each moves to the nearest free spot along its edge's vertical
  const boxes = d.nodes.map((n) => ({ x: n.x + n.w / 2, y: n.y + n.h / 2, w: n.w + 4, h: n.h + 4 }));
  placeLabels(pending.map((p) => p.box), 2, boxes).forEach(({ x, y, w, h }, i) => {
    const { text, col } = pending[i];
    labels.append(s('g', {},
      s('rect', { x: x - w / 2, y: y - h / 2, width: w, height: h, rx: 9, fill: pal.bg, stroke: col, 'stroke-width': 1 }),
      s('text', { x, y: y + 4, 'text-anchor': 'middle', fill: col, 'font-size': 11, 'font-weight': 600 }, text)));
  });
  root.append(labels);
  void LANE_LABEL_W;
  return svg;
}

/** Wheel zoom, drag pan, keyboard (+ - 0 arrows) on a container holding one SVG. */
export function attachPanZoom(container: HTMLElement, svg: SVGSVGElement) {
  const vb0 = svg.viewBox.baseVal;
  const base = { x: vb0.x, y: vb0.y, w: vb0.width, h: vb0.height };
  let view = { ...base };
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  svg.style.width = '100%';
  svg.style.height = '100%';
  const apply = () => svg.setAttribute('viewBox', `${view.x} ${view.y} ${view.w} ${view.h}`);
  // a narrow screen (a phone) does not shrink the text below MIN_SCALE: it shows part of the
  // diagram at a readable size, from its top left, and pans (drag, arrows) to the rest
  const MIN_SCALE = 0.85, SHRUNK = 0.6;
  const cw = container.clientWidth, ch = container.clientHeight;
  if (cw > 0 && ch > 0 && Math.min(cw / base.w, ch / base.h) < SHRUNK) {
    view = { x: base.x, y: base.y, w: cw / MIN_SCALE, h: ch / MIN_SCALE };
    apply();
  }
  const zoom = (f: number, cx = 0.5, cy = 0.5) => {
    const nw = Math.min(Math.max(view.w * f, base.w / 20), base.w * 4);
    const k = nw / view.w;
    view = { x: view.x + (view.w - view.w * k) * cx, y: view.y + (view.h - view.h * k) * cy, w: view.w * k, h: view.h * k };
    apply();
  };
  container.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = svg.getBoundingClientRect();
    zoom(Math.exp(e.deltaY * 0.0015), (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
  }, { passive: false });
  let drag: { x: number; y: number; vx: number; vy: number } | null = null;
  container.addEventListener('pointerdown', (e) => {
    drag = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y };
    container.setPointerCapture(e.pointerId);
    container.classList.add('grabbing');
  });
  container.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const r = svg.getBoundingClientRect();
    const sc = Math.max(view.w / r.width, view.h / r.height);
    view.x = drag.vx - (e.clientX - drag.x) * sc;
    view.y = drag.vy - (e.clientY - drag.y) * sc;
    apply();
  });
  const end = () => { drag = null; container.classList.remove('grabbing'); };
  container.addEventListener('pointerup', end);
  container.addEventListener('pointercancel', end);
  container.addEventListener('keydown', (e) => {
    const step = view.w * 0.1;
    const keys: Record<string, () => void> = {
      '+': () => zoom(0.8), '=': () => zoom(0.8), '-': () => zoom(1.25), '0': () => { view = { ...base }; apply(); },
      ArrowLeft: () => { view.x -= step; apply(); }, ArrowRight: () => { view.x += step; apply(); },
      ArrowUp: () => { view.y -= step; apply(); }, ArrowDown: () => { view.y += step; apply(); },
    };
    const f = keys[e.key];
    if (f) { e.preventDefault(); f(); }
  });
  return { zoomIn: () => zoom(0.8), zoomOut: () => zoom(1.25), reset: () => { view = { ...base }; apply(); } };
}

export function svgText(svg: SVGSVGElement, d: Diagram): string {
  const c = svg.cloneNode(true) as SVGSVGElement;
  c.setAttribute('viewBox', `0 0 ${d.width + 40} ${d.height + 10}`);
  c.setAttribute('width', String(d.width + 40));
  c.setAttribute('height', String(d.height + 10));
  c.removeAttribute('style');
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(c);
}

export async function pngBlob(svgSource: string, w: number, h: number, scale = 2): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svgSource], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'async';
    await new Promise<void>((res, rej) => { img.onload = () => res(); img.onerror = () => rej(new Error('could not render the SVG')); img.src = url; });
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(w * scale);
    canvas.height = Math.ceil(h * scale);
    const ctx = canvas.getContext('2d')!;
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, w, h);
    return await new Promise<Blob>((res, rej) => canvas.toBlob((b) => (b ? res(b) : rej(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
