// A Hermitage table's cells and cases as the page shows them (hermitage.ts reads the table): what a
// cell's mark means, the cases behind a cell, a case's script as steps of sessions, a cell's and a
// case's name in the address (cell=, case=), and a case's history as a file the page checks.
// Pure logic: no DOM.
import type { HermitageCase, HermitageRow, HermitageTable } from './hermitage';

/** What a cell says, as the CLI's table marks it. */
export type CellKind = 'prevented' | 'occurs' | 'read-only' | 'untested' | 'undecided' | 'other';

const MARKS: Record<string, { kind: CellKind; meaning: string }> = {
  '\u2713': { kind: 'prevented', meaning: 'prevented' },
  '\u2014': { kind: 'occurs', meaning: 'occurs' },
  'R/O': { kind: 'read-only', meaning: 'prevented for read-only transactions only' },
  'n/a': { kind: 'untested', meaning: 'not tested' },
  '?': { kind: 'undecided', meaning: 'undecided: a case could not run or its verdict is unknown' },
};

/** The marks in the order the legend lists them. */
export const LEGEND = Object.entries(MARKS).map(([mark, m]) => ({ mark, ...m }));

/** What a cell's mark means (a mark the page does not know stands for itself). */
export function markMeaning(mark: string): { kind: CellKind; meaning: string } {
  return MARKS[mark] ?? { kind: 'other', meaning: mark };
}

/** A cell: a row (by its isolation level) and an anomaly. */
export interface CellRef { isolation: string; anomaly: string }

/** The cases of a cell, in the order they ran. */
export function cellCases(row: HermitageRow, anomaly: string): HermitageCase[] {
  return row.cases.filter((c) => c.anomaly === anomaly);
}

/** A cell in the address: "read-committed.P4" (an isolation level's name has no dot). */
export function encodeCell(ref: CellRef): string {
  return `${ref.isolation}.${ref.anomaly}`;
}

/** The cell the address names, when the table has it; else null. */
export function decodeCell(table: HermitageTable, text: string | null): CellRef | null {
  if (!text) return null;
  const dot = text.indexOf('.');
  if (dot < 0) return null;
  const ref = { isolation: text.slice(0, dot), anomaly: text.slice(dot + 1) };
  return findRow(table, ref.isolation) && table.anomalies.some((a) => a.name === ref.anomaly) ? ref : null;
}

export function findRow(table: HermitageTable, isolation: string): HermitageRow | undefined {
  return table.rows.find((r) => r.isolation === isolation);
}

/** The case the address names (case=: its number in its cell, from 1) that has a history; else null. */
export function findCase(table: HermitageTable, ref: CellRef | null, number: string | null): HermitageCase | null {
  const row = ref && findRow(table, ref.isolation);
  const n = Number(number);
  if (!row || !Number.isInteger(n) || n < 1) return null;
  const c = cellCases(row, ref.anomaly)[n - 1];
  return c?.history !== undefined ? c : null;
}

/** "G-single (read-only)", as the CLI names a case. */
export function caseName(c: HermitageCase): string {
  return c.variant ? `${c.anomaly} (${c.variant})` : c.anomaly;
}

/** A step of a script: its session ("T1"; null when the step names none) and the rest. */
export interface ScriptStep { session: string | null; text: string }

/** "T1 begin; T1 write x 1" -> steps, numbered as the waits number them (from 1, empty ones dropped). */
export function scriptSteps(script: string): ScriptStep[] {
  return script.split(';').map((s) => s.trim()).filter(Boolean).map((s) => {
    const m = /^(T\d+)\s+(.*)$/.exec(s);
    return m ? { session: m[1], text: m[2] } : { session: null, text: s };
  });
}

/** The sessions of steps, by number (T1, T2, ..., T10). */
export function sessionsOf(steps: ScriptStep[]): string[] {
  const set = new Set(steps.map((s) => s.session).filter((s): s is string => s !== null));
  return [...set].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

/** "15.18 (Debian 15.18-0+deb12u1)" -> "15.18"; "10.11.19-MariaDB-0+deb12u1" -> "10.11.19". */
export function shortVersion(version: string): string {
  return version.split(/[ -]/)[0] ?? version;
}

/** "PostgreSQL 15.18": the table's database, briefly. */
export function databaseName(table: HermitageTable): string {
  return `${table.database} ${shortVersion(table.version)}`.trim();
}

/** What the page calls a case's history: "PostgreSQL 15.18 · read-committed · P4". */
export function caseLabel(table: HermitageTable, isolation: string, c: HermitageCase): string {
  return `${databaseName(table)} \u00b7 ${isolation} \u00b7 ${caseName(c)}`;
}

/**
 * A case's history as a file for the checker: its isoscope JSON, written again from the table's
 * (its numbers are small integers and times in nanoseconds from the case's start, exact in JSON).
 */
export function caseHistoryFile(table: HermitageTable, isolation: string, c: HermitageCase): { name: string; data: ArrayBuffer } {
  const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^-+|-+$/g, '');
  const name = `${[table.database, isolation, c.anomaly, c.variant].filter(Boolean).map(slug).join('-')}.json`;
  const bytes = new TextEncoder().encode(JSON.stringify(c.history));
  return { name, data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer };
}
