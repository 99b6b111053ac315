// How the page prints values and operations: `r x \u2192 0`, `w 7 \u2190 "a"`, `r l \u2192 [1 2]`.
import type { Op, Value } from '../core/types';

export function fmtValue(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(fmtValue).join(' ')}]`;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

export function fmtOp(op: Op): string {
  const [f, k, v] = op;
  const key = String(k);
  if (f === 'r') return `r ${key} \u2192 ${fmtValue(v)}`;
  if (f === 'w') return `w ${key} \u2190 ${fmtValue(v)}`;
  if (f === 'append') return `append ${key} ${fmtValue(v)}`;
  return `${f} ${key} ${fmtValue(v)}`;
}
