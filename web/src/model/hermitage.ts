// A Hermitage table: what `isoscope hermitage TARGET --json` writes (docs/hermitage.md, "The
// JSON"; native/cli/hermitage_command.cpp): the database and its version, the anomalies (the
// columns), and a row per isolation level with a cell per anomaly and the cases run, each with
// the history it recorded. Telling one from a history, and reading it with a located error.
// Pure logic: no DOM.

/** A column: an anomaly of Hermitage's ("G0", "write cycles"). */
export interface HermitageAnomaly { name: string; title: string }
/** A step of a case's script that waited for a lock (step: 1-based), and for whom. */
export interface HermitageWait { step: number; session: string; waited_for: string[] }
export interface HermitageCase {
  anomaly: string;
  /** "" or "read-only", "with writes", ... */
  variant: string;
  /** the isoscope level the case's history is checked at */
  level: string;
  /** "T1 begin; T2 begin; T1 write x 1; ..." */
  script: string;
  /** the anomaly in this script, for people */
  what: string;
  /** the case could not run (then no result) */
  error?: string;
  result?: 'occurs' | 'prevented';
  /** prevented: "blocked", "aborted: <the database's message>", "nothing anomalous read" */
  how?: string;
  waits: HermitageWait[];
  /** the database's refusals ("T2: ERROR: could not serialize ...") */
  refusals: string[];
  /** the history it recorded (isoscope JSON), with a result */
  history?: unknown;
}
export interface HermitageRow {
  /** the database's name for the level ("read-committed") */
  isolation: string;
  /** the strongest isoscope level every history of the row passes ("SI", "below RC", "unknown") */
  provides: string;
  error?: string;
  /** anomaly name -> the CLI's mark: ✓ — R/O n/a ? */
  cells: Record<string, string>;
  cases: HermitageCase[];
}
export interface HermitageTable {
  database: string;
  version: string;
  target: string;
  anomalies: HermitageAnomaly[];
  rows: HermitageRow[];
}

/** A Hermitage JSON that does not have the structure the command writes. */
export class HermitageError extends Error {}

/** What the page reads of a file to tell a Hermitage table by: the start of its top-level object. */
export const HEAD_BYTES = 64 * 1024;
/** The largest Hermitage table the page reads (the command's are a few hundred KB). */
export const MAX_HERMITAGE_BYTES = 64 * 1024 * 1024;
/** The members that make a JSON object a Hermitage table (the command writes them first). */
export const MARKER_KEYS = ['database', 'anomalies', 'rows'] as const;

const isSpace = (c: string) => c === ' ' || c === '\n' || c === '\r' || c === '\t';

/**
 * The keys of the top-level JSON object that begin in `head` (the start of a text), in order;
 * [] when the text does not start with an object. No JSON is parsed: strings and nesting are
 * skipped, so a key of a nested object never counts.
 */
export function topLevelKeys(head: string): string[] {
  const n = head.length;
  let i = head.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < n && isSpace(head[i])) i++;
  if (head[i] !== '{') return [];
  const keys: string[] = [];
  let depth = 0;
  for (; i < n; i++) {
    const c = head[i];
    if (c === '"') {
      const start = ++i;
      while (i < n && head[i] !== '"') i += head[i] === '\\' ? 2 : 1;
      if (i >= n) break;
      if (depth === 1) {
        let j = i + 1;
        while (j < n && isSpace(head[j])) j++;
        if (head[j] === ':') keys.push(head.slice(start, i));
      }
    } else if (c === '{' || c === '[') {
      depth++;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) break;
    }
  }
  return keys;
}

/**
 * Whether bytes are a Hermitage table: a JSON object whose top-level members include
 * "database", "anomalies" and "rows" within its first HEAD_BYTES (where the command writes them,
 * before any history). Reads HEAD_BYTES at most, whatever the input's size.
 */
export function isHermitage(data: ArrayBuffer): boolean {
  const head = new TextDecoder().decode(new Uint8Array(data, 0, Math.min(data.byteLength, HEAD_BYTES)));
  const keys = new Set(topLevelKeys(head));
  return MARKER_KEYS.every((k) => keys.has(k));
}

const EXPECTED = 'a Hermitage table as `isoscope hermitage TARGET --json` writes it (docs/hermitage.md)';

type Obj = Record<string, unknown>;
const fail = (path: string, what: string): never => { throw new HermitageError(`${path}: expected ${what}, in ${EXPECTED}`); };
const at = (path: string, key: string) => (path ? `${path}.${key}` : key);

function obj(v: unknown, path: string, what: string): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : fail(path || 'the document', what);
}
function str(o: Obj, key: string, path: string, optional = false): string {
  const v = o[key];
  if (optional && v === undefined) return '';
  return typeof v === 'string' ? v : fail(at(path, key), `"${key}", a string`);
}
function arr(o: Obj, key: string, path: string, what: string): unknown[] {
  const v = o[key];
  return Array.isArray(v) ? v : fail(at(path, key), `"${key}", an array of ${what}`);
}
function strs(o: Obj, key: string, path: string): string[] {
  return arr(o, key, path, 'strings').map((s, i) => (typeof s === 'string' ? s : fail(`${at(path, key)}[${i}]`, 'a string')));
}

function readCase(v: unknown, path: string, anomalies: Set<string>): HermitageCase {
  const o = obj(v, path, 'a case (an object)');
  const c: HermitageCase = {
    anomaly: str(o, 'anomaly', path), variant: str(o, 'variant', path, true), level: str(o, 'level', path),
    script: str(o, 'script', path), what: str(o, 'what', path, true), waits: [], refusals: [],
  };
  if (!anomalies.has(c.anomaly)) fail(at(path, 'anomaly'), `one of the table's anomalies (${[...anomalies].join(', ')}), not "${c.anomaly}"`);
  if (o.error !== undefined) c.error = str(o, 'error', path);
  if (o.result === undefined) return c.error !== undefined ? c : fail(path, 'a "result" ("occurs" or "prevented") or an "error"');
  if (o.result !== 'occurs' && o.result !== 'prevented') fail(at(path, 'result'), '"occurs" or "prevented"');
  c.result = o.result as 'occurs' | 'prevented';
  c.how = str(o, 'how', path, true);
  c.waits = arr(o, 'waits', path, 'waits').map((w, i) => {
    const p = `${at(path, 'waits')}[${i}]`;
    const wo = obj(w, p, 'a wait ({"step", "session", "waited_for"})');
    if (!Number.isInteger(wo.step) || (wo.step as number) < 1) fail(at(p, 'step'), 'a step number (1 or more)');
    return { step: wo.step as number, session: str(wo, 'session', p), waited_for: strs(wo, 'waited_for', p) };
  });
  c.refusals = strs(o, 'refusals', path);
  c.history = obj(o.history, at(path, 'history'), 'the history the case recorded (isoscope JSON, an object)');
  return c;
}

function readRow(v: unknown, path: string, anomalies: HermitageAnomaly[]): HermitageRow {
  const o = obj(v, path, 'a row (an object)');
  const cellsObj = obj(o.cells, at(path, 'cells'), 'a cell per anomaly ({"G0": "✓", ...})');
  const cells: Record<string, string> = {};
  for (const a of anomalies) {
    const mark = cellsObj[a.name];
    cells[a.name] = typeof mark === 'string' && mark.length > 0 && mark.length <= 8 ? mark : fail(at(at(path, 'cells'), a.name), `the cell of ${a.name}, a mark (✓, —, R/O, n/a or ?)`);
  }
  const names = new Set(anomalies.map((a) => a.name));
  const row: HermitageRow = {
    isolation: str(o, 'isolation', path), provides: str(o, 'provides', path), cells,
    cases: arr(o, 'cases', path, 'cases').map((c, i) => readCase(c, `${at(path, 'cases')}[${i}]`, names)),
  };
  if (o.error !== undefined) row.error = str(o, 'error', path);
  return row;
}

/** Reads a Hermitage table's text; a HermitageError says where it is not one and what was expected. */
export function parseHermitage(text: string): HermitageTable {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new HermitageError(`not valid JSON (${(e as Error).message}), where ${EXPECTED} was expected`);
  }
  const o = obj(doc, '', 'a JSON object');
  const anomalies = arr(o, 'anomalies', '', 'anomalies ({"name", "title"})').map((a, i) => {
    const ao = obj(a, `anomalies[${i}]`, 'an anomaly ({"name", "title"})');
    return { name: str(ao, 'name', `anomalies[${i}]`), title: str(ao, 'title', `anomalies[${i}]`, true) };
  });
  if (!anomalies.length) fail('anomalies', 'one anomaly or more');
  if (new Set(anomalies.map((a) => a.name)).size !== anomalies.length) fail('anomalies', 'each anomaly named once');
  const rows = arr(o, 'rows', '', 'rows').map((r, i) => readRow(r, `rows[${i}]`, anomalies));
  if (!rows.length) fail('rows', 'one row or more');
  return { database: str(o, 'database', ''), version: str(o, 'version', ''), target: str(o, 'target', '', true), anomalies, rows };
}

/** Reads a file as a Hermitage table: null when it is not one (isHermitage), else the table or a HermitageError. */
export function readHermitage(data: ArrayBuffer): HermitageTable | null {
  if (!isHermitage(data)) return null;
  if (data.byteLength > MAX_HERMITAGE_BYTES) throw new HermitageError(`a Hermitage table of ${Math.round(data.byteLength / 2 ** 20)} MB: the page reads ones up to ${MAX_HERMITAGE_BYTES / 2 ** 20} MB`);
  return parseHermitage(new TextDecoder().decode(data));
}
