import { describe, expect, it } from 'vitest';
import mariadb from '../../../tests/fixtures/hermitage/mariadb-10.11.json?raw';
import { parseHermitage } from './hermitage';
import { caseHistoryFile, caseLabel, caseName, cellCases, databaseName, decodeCell, encodeCell, findCase, markMeaning, scriptSteps, sessionsOf, shortVersion } from './hermitage-cells';

const maria = parseHermitage(mariadb);

describe('a cell', () => {
  it("means what the CLI's mark says", () => {
    expect(markMeaning('\u2713').kind).toBe('prevented');
    expect(markMeaning('\u2014').kind).toBe('occurs');
    expect(markMeaning('R/O')).toEqual({ kind: 'read-only', meaning: 'prevented for read-only transactions only' });
    expect(markMeaning('n/a').kind).toBe('untested');
    expect(markMeaning('?').kind).toBe('undecided');
    expect(markMeaning('new')).toEqual({ kind: 'other', meaning: 'new' });
  });

  it('is named in the address by its row and anomaly, when the table has them', () => {
    const ref = { isolation: 'repeatable-read', anomaly: 'G-single' };
    expect(encodeCell(ref)).toBe('repeatable-read.G-single');
    expect(decodeCell(maria, 'repeatable-read.G-single')).toEqual(ref);
    expect(decodeCell(maria, 'repeatable-read.G9')).toBeNull();
    expect(decodeCell(maria, 'snapshot.G0')).toBeNull();
    expect(decodeCell(maria, 'G0')).toBeNull();
    expect(decodeCell(maria, null)).toBeNull();
  });

  it("holds its anomaly's cases, found by number from 1", () => {
    const row = maria.rows.find((r) => r.isolation === 'repeatable-read')!;
    const cases = cellCases(row, 'G-single');
    expect(cases.map(caseName)).toEqual(['G-single (read-only)', 'G-single (with writes)']);
    expect(cases.map((c) => c.result)).toEqual(['prevented', 'occurs']);  // R/O
    const ref = { isolation: 'repeatable-read', anomaly: 'G-single' };
    expect(findCase(maria, ref, '2')).toBe(cases[1]);
    for (const n of ['0', '3', '1.5', 'x', null]) expect(findCase(maria, ref, n)).toBeNull();
  });
});

describe('a case', () => {
  it('has a script of steps by session', () => {
    const steps = scriptSteps('T1 begin; T10 read x;  T2 write y 2 ;; note');
    expect(steps).toEqual([{ session: 'T1', text: 'begin' }, { session: 'T10', text: 'read x' }, { session: 'T2', text: 'write y 2' }, { session: null, text: 'note' }]);
    expect(sessionsOf(steps)).toEqual(['T1', 'T2', 'T10']);
  });

  it('is called after its database, level and anomaly', () => {
    expect(shortVersion('15.18 (Debian 15.18-0+deb12u1)')).toBe('15.18');
    expect(shortVersion('10.11.19-MariaDB-0+deb12u1')).toBe('10.11.19');
    expect(databaseName(maria)).toBe('MariaDB 10.11.19');
    const c = findCase(maria, { isolation: 'read-committed', anomaly: 'P4' }, '1')!;
    expect(caseLabel(maria, 'read-committed', c)).toBe('MariaDB 10.11.19 \u00b7 read-committed \u00b7 P4');
  });

  it('gives its history as an isoscope JSON file', () => {
    const c = findCase(maria, { isolation: 'repeatable-read', anomaly: 'G-single' }, '1')!;
    const f = caseHistoryFile(maria, 'repeatable-read', c);
    expect(f.name).toBe('mariadb-repeatable-read-g-single-read-only.json');
    expect(JSON.parse(new TextDecoder().decode(f.data))).toEqual(c.history);
  });
});
