// How the page prints values and operations: `r x \u2192 0`, `w 7 \u2190 "a"`, `r l \u2192 [1 2]`.
// A string is always quoted, so "nil", "null" and "7" never look like nil, null or 7. A long
// name (a key or value beyond 64 bytes) comes from the core as a reference, {name, shown,
// bytes}: it is printed by its shortened form, and its whole text is fetched only on demand
// (wholeNameLink), never put into the DOM.
import type { Key, LongName, Op, Value } from '../core/types';

export function isLongName(v: unknown): v is LongName {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as LongName).name === 'string';
}

/** A key as it is shown: x, 7, or a long name's shortened form. */
export function keyText(k: Key): string {
  return isLongName(k) ? k.shown : String(k);
}

/** A key's identity (7 and "7" differ; a long name by its number). */
export function keyId(k: Key): string {
  return isLongName(k) ? `long:${k.name}` : `${typeof k}:${k}`;
}

export function fmtValue(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(fmtValue).join(' ')}]`;
  if (isLongName(v)) return v.shown;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

export function fmtOp(op: Op): string {
  const [f, k, v] = op;
  const key = keyText(k);
  if (f === 'r') return `r ${key} \u2192 ${fmtValue(v)}`;
  if (f === 'w') return `w ${key} \u2190 ${fmtValue(v)}`;
  if (f === 'append') return `append ${key} ${fmtValue(v)}`;
  if (f === 'select') {
    // A predicate read of a table: its predicate and the rows it returned.
    const rows = (Array.isArray(v) ? v : []) as unknown as [Key, Value][];
    return `select ${key} \u2192 {${rows.map(([rk, rv]) => `(${keyText(rk)}, ${fmtValue(rv)})`).join(', ')}}`;
  }
  return `${f} ${key} ${fmtValue(v)}`;
}

/** The long names an operation mentions (its key, its value, a list's elements), each once. */
export function longNamesOf(op: Op): LongName[] {
  const out: LongName[] = [];
  const add = (x: unknown) => { if (isLongName(x) && !out.some((n) => n.name === x.name)) out.push(x); };
  add(op[1]);
  if (Array.isArray(op[2])) op[2].forEach(add);
  else add(op[2]);
  return out;
}
