import { describe, expect, it } from 'vitest';
import { anchor, buildDiagram, chooseRows, placeInLanes, toDot, placeLabels } from './model';
import { fmtOp } from '../model/ops';
import { Names } from '../model/names';
import type { Anomaly, Op, Txn } from '../core/types';

/** a history named as loaded */
const names = new Names(null);
const anomaly: Anomaly = {
  kind: 'LostUpdate',
  transactions: [{ txn: 1, session: 0, index: 0 }, { txn: 2, session: 1, index: 0 }, { txn: 3, session: 0, index: 1 }],
  edges: [{ from: 0, to: 1, type: 'RW', key: 'x', from_op: 0, to_op: 1 }, { from: 1, to: 0, type: 'WR', key: 'x', from_op: 1, to_op: 0 }, { from: 9, to: 0, type: 'WW' }],
};
const txns = new Map<number, Txn>([
  [1, { txn: 1, session: 0, index: 0, ops: [['r', 'x', 0], ['w', 'x', 1]] }],
  [2, { txn: 2, session: 1, index: 0, status: 'aborted', ops: [['r', 'x', 0], ['w', 'x', 2]] }],
]);

describe('anomaly diagram model', () => {
  it('formats operations', () => {
    expect(fmtOp(['r', 'x', 0])).toBe('r x \u2192 0');
    expect(fmtOp(['w', 7, 'a'])).toBe('w 7 \u2190 "a"');
    expect(fmtOp(['r', 'l', [1, 2]])).toBe('r l \u2192 [1 2]');
  });
  it('drops out-of-range edges and adds session order', () => {
    const d = buildDiagram(anomaly, txns, names);
    expect(d.edges.map((e) => e.type)).toEqual(['RW', 'WR', 'SO']);
    expect(d.edges[2]).toMatchObject({ from: 0, to: 2, implicit: true });
    expect(d.nodes[1].status).toBe('aborted');
    expect(d.nodes[2].rows).toEqual([]);
  });
  it('places nodes in session lanes in session order', () => {
    const d = placeInLanes(buildDiagram(anomaly, txns, names), new Map([[0, 500], [1, 0], [2, 0]]));
    expect(d.lanes.map((l) => l.session)).toEqual([0, 1]);
    const [a, b, c] = d.nodes;
    expect(a.y).toBe(c.y);
    expect(b.y).toBeGreaterThan(a.y);
    expect(c.x).toBeGreaterThan(a.x); // session order wins over ELK's x
    const p = anchor(a, 1, 'r');
    expect(p.x).toBe(a.x + a.w);
    expect(p.y).toBeGreaterThan(a.y);
  });
  it('collapses long transactions around anchored operations', () => {
    const ops: Op[] = Array.from({ length: 100 }, (_, i): Op => ['w', `k${i}`, i]);
    const rows = chooseRows(ops, new Set([50]));
    expect(rows.filter((r) => r.kind === 'op').map((r) => r.op)).toEqual([0, 50, 99]);
    expect(rows.filter((r) => r.kind === 'gap').length).toBe(2);
  });
  it('exports DOT with escaped labels', () => {
    const a2: Anomaly = { ...anomaly, transactions: [{ txn: 1, session: 0, index: 0, id: 'a"b' }] , edges: [] };
    const dot = toDot(buildDiagram(a2, new Map([[1, { txn: 1, session: 0, index: 0, ops: [['w', 'q"', 1]] }]]), names), names, 'x"y');
    expect(dot).toContain('digraph "x\\"y"');
    expect(dot).toContain('w q\\"');
    expect(toDot(buildDiagram(anomaly, txns, names), names)).toMatch(/n0 -> n1 \[label="RW x", color="#dc2626"\]/);
  });
  it('puts the initial transaction (session null) in its own lane', () => {
    // the JSON's initial transaction has null where the type has a number
    const a = { kind: 'X', transactions: [{ txn: 0, session: null, index: null, id: 'init' }, { txn: 1, session: 0, index: 0 }], edges: [{ from: 1, to: 0, type: 'CO', key: 'x' }] } as unknown as Anomaly;
    const d = placeInLanes(buildDiagram(a, txns, names), new Map([[0, 0], [1, 100]]));
    expect(d.lanes.map((l) => l.session)).toEqual([-1, 0]);
    expect(d.nodes[0].sub).toBe('initial state');
    expect(d.nodes[0].rows[0].kind).toBe('gap');
  });
});

describe('edge labels', () => {
  it('never overlap, however many share an anchor', () => {
    const boxes = Array.from({ length: 12 }, (_, i) => ({ x: 100 + (i % 3) * 10, y: 50, w: 40 + i, h: 18 }));
    const placed = placeLabels(boxes);
    for (let i = 0; i < placed.length; i++)
      for (let j = i + 1; j < placed.length; j++) {
        const [a, b] = [placed[i], placed[j]];
        const overlap = Math.abs(a.x - b.x) * 2 < a.w + b.w && Math.abs(a.y - b.y) * 2 < a.h + b.h;
        expect(overlap, `labels ${i} and ${j}`).toBe(false);
      }
    expect(placed[0]).toEqual(boxes[0]);  // a free label stays at its anchor
  });
});

describe('the story around a cycle', () => {
  it('draws the reads-from edges among witness transactions (a fractured read\'s reader)', () => {
    const a = {
      kind: 'FracturedRead',
      transactions: [{ txn: 0, session: null, index: null }, { txn: 5, session: 1, index: 0 }, { txn: 9, session: 2, index: 0 }],
      edges: [{ from: 0, to: 1, type: 'SO' }, { from: 1, to: 0, type: 'CO', key: 'y' }],
    } as unknown as Anomaly;  // null: as in the JSON
    const t = new Map<number, Txn>([[5, { txn: 5, session: 1, index: 0, ops: [['w', 'x', 1], ['w', 'y', 1]] }], [9, { txn: 9, session: 2, index: 0, ops: [['r', 'y', 0], ['r', 'x', 1]] }]]);
    const d = buildDiagram(a, t, names);
    const wr = d.edges.filter((e) => e.type === 'WR');
    expect(wr).toEqual([expect.objectContaining({ from: 1, to: 2, key: 'x', fromOp: 0, toOp: 1, implicit: true })]);
  });
});

describe('edge labels', () => {
  it('never cover a transaction box', () => {
    const box = { x: 100, y: 100, w: 80, h: 60 };
    const [l] = placeLabels([{ x: 100, y: 100, w: 40, h: 18 }], 2, [box]);
    expect(Math.abs(l.y - 100) * 2).toBeGreaterThanOrEqual(18 + 60);
  });
});
