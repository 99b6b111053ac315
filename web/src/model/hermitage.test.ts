import { describe, expect, it } from 'vitest';
import postgres from '../../../tests/fixtures/hermitage/postgresql-15.json?raw';
import { HEAD_BYTES, HermitageError, isHermitage, parseHermitage, readHermitage, topLevelKeys } from './hermitage';

const bytes = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;

/** A small table of one row and two anomalies, as the command writes one. */
function table(over: (doc: Record<string, any>) => void = () => {}): string {
  const history = { format: 'isoscope/1', initial: 0, sessions: [[{ id: 'T1', ops: [['w', 'x', 1]], status: 'committed' }]] };
  const doc: Record<string, any> = {
    database: 'PostgreSQL', version: '15.18', target: 'postgresql://u@h:1/db',
    anomalies: [{ name: 'G0', title: 'write cycles' }, { name: 'PMP', title: 'predicate-many-preceders' }],
    rows: [{ isolation: 'read-committed', provides: 'RC', cells: { G0: '\u2713', PMP: 'n/a' }, cases: [
      { anomaly: 'G0', variant: '', level: 'RC', script: 'T1 begin; T1 write x 1; T1 commit', what: 'w', result: 'prevented', how: 'blocked',
        waits: [{ step: 2, session: 'T1', waited_for: ['T2'] }], refusals: [], history, check: {} }] }],
  };
  over(doc);
  return JSON.stringify(doc);
}

describe('topLevelKeys', () => {
  it('lists the top-level object keys only, skipping strings and nested values', () => {
    expect(topLevelKeys('\ufeff {"a": {"b": 1, "rows": []}, "c": "x\\"}{\\"d\\": 1", "e": [{"f": 2}], "g"')).toEqual(['a', 'c', 'e']);
    expect(topLevelKeys('[{"rows": 1}]')).toEqual([]);
    expect(topLevelKeys('{"database": "x", "anomalies": [], "rows": [')).toEqual(['database', 'anomalies', 'rows']);
  });
});

describe('isHermitage', () => {
  it("tells the command's tables, key order aside, from histories", () => {
    expect(isHermitage(bytes(postgres))).toBe(true);
    const sorted = JSON.parse(table());
    expect(isHermitage(bytes(JSON.stringify(Object.fromEntries(Object.entries(sorted).sort()), null, 2)))).toBe(true);
    // a recorded history names its database too, in recorded_by
    expect(isHermitage(bytes('{"format": "isoscope/1", "recorded_by": {"database": "PostgreSQL", "rows": 3, "anomalies": []}, "sessions": []}'))).toBe(false);
    expect(isHermitage(bytes('{"database": "x", "rows": []}'))).toBe(false);
    expect(isHermitage(bytes('not json at all'))).toBe(false);
  });

  it('reads no more than the head of a large input', () => {
    const big = `{"sessions": [${'1,'.repeat(HEAD_BYTES)}1], "database": "x", "anomalies": [], "rows": []}`;
    expect(isHermitage(bytes(big))).toBe(false);
  });
});

describe('parseHermitage', () => {
  it("reads the command's table: the anomalies, the rows, their cells and cases with histories", () => {
    const t = parseHermitage(postgres);
    const raw = JSON.parse(postgres);
    expect(t.database).toBe('PostgreSQL');
    expect(t.anomalies.map((a) => a.name)).toEqual(raw.anomalies.map((a: { name: string }) => a.name));
    expect(t.rows.map((r) => r.isolation)).toEqual(['read-committed', 'repeatable-read', 'serializable']);
    expect(t.rows[0].cells.P4).toBe('\u2014');
    expect(t.rows[0].cases.every((c) => c.result && typeof c.history === 'object')).toBe(true);
  });

  it('reads a case that could not run (an error, no result or history)', () => {
    const t = parseHermitage(table((d) => { d.rows[0].error = 'G0: lost'; d.rows[0].cases[0] = { anomaly: 'G0', variant: '', level: 'RC', script: 's', what: 'w', error: 'lost' }; }));
    expect(t.rows[0].error).toBe('G0: lost');
    expect(t.rows[0].cases[0]).toMatchObject({ error: 'lost', waits: [], refusals: [] });
    expect(t.rows[0].cases[0].history).toBeUndefined();
  });

  const bad: [string, (d: Record<string, any>) => void, RegExp][] = [
    ['no rows', (d) => { delete d.rows; }, /^rows: expected "rows", an array of rows, in a Hermitage table as `isoscope hermitage TARGET --json` writes it/],
    ['no row', (d) => { d.rows = []; }, /^rows: expected one row or more/],
    ['a database that is no string', (d) => { d.database = 3; }, /^database: expected "database", a string/],
    ['an anomaly twice', (d) => { d.anomalies.push({ name: 'G0', title: '' }); }, /^anomalies: expected each anomaly named once/],
    ['a missing cell', (d) => { delete d.rows[0].cells.PMP; }, /^rows\[0\]\.cells\.PMP: expected the cell of PMP/],
    ['a case of no anomaly of the table', (d) => { d.rows[0].cases[0].anomaly = 'P4'; }, /^rows\[0\]\.cases\[0\]\.anomaly: expected one of the table's anomalies \(G0, PMP\), not "P4"/],
    ['a case without result or error', (d) => { delete d.rows[0].cases[0].result; }, /^rows\[0\]\.cases\[0\]: expected a "result" \("occurs" or "prevented"\) or an "error"/],
    ['a result of neither kind', (d) => { d.rows[0].cases[0].result = 'maybe'; }, /^rows\[0\]\.cases\[0\]\.result: expected "occurs" or "prevented"/],
    ['a history that is no object', (d) => { d.rows[0].cases[0].history = '[]'; }, /^rows\[0\]\.cases\[0\]\.history: expected the history the case recorded/],
    ['a wait at step 0', (d) => { d.rows[0].cases[0].waits[0].step = 0; }, /^rows\[0\]\.cases\[0\]\.waits\[0\]\.step: expected a step number/],
    ['a refusal that is no string', (d) => { d.rows[0].cases[0].refusals = [1]; }, /^rows\[0\]\.cases\[0\]\.refusals\[0\]: expected a string/],
  ];
  for (const [what, change, message] of bad) {
    it(`names what it expected: ${what}`, () => {
      expect(() => parseHermitage(table(change))).toThrow(HermitageError);
      expect(() => parseHermitage(table(change))).toThrow(message);
    });
  }

  it('says so of text that is not JSON', () => {
    expect(() => parseHermitage('{"database": "x", "anomalies": [], "rows": [')).toThrow(/^not valid JSON \(.*\), where a Hermitage table as/);
  });
});

describe('readHermitage', () => {
  it('is null for other inputs, the table for a Hermitage JSON, an error for a broken one', () => {
    expect(readHermitage(bytes('{"initial": 0, "sessions": []}'))).toBeNull();
    expect(readHermitage(bytes(table()))?.rows[0].provides).toBe('RC');
    expect(() => readHermitage(bytes(table((d) => { d.rows = 'none'; })))).toThrow(/^rows: expected "rows"/);
  });
});
