// Plain-language names for the anomaly kinds the core reports. The vocabulary is the core's
// (wasm/core/model/anomaly_kinds.h): the build writes it to web/generated/anomaly-kinds.json
// with `isoscope anomalies --json`, so the page and the checkers never disagree on a name.
import vocabulary from '../../generated/anomaly-kinds.json';
import type { AnomalyKindInfo } from '../core/types';

export const ANOMALY_KINDS: readonly AnomalyKindInfo[] = vocabulary;
const KINDS = new Map(ANOMALY_KINDS.map((k) => [k.name, k]));

/** "NonRepeatableRead" -> "Non repeatable read" for kinds we have no entry for. */
export function humanizeKind(kind: string): string {
  const s = kind.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
}

export function describeKind(kind: string): { title: string; summary: string } {
  const k = KINDS.get(kind);
  return k ? { title: k.title, summary: k.description } : { title: humanizeKind(kind), summary: '' };
}

export const EDGE_DOCS: Record<string, string> = {
  SO: 'session order',
  WR: 'write \u2192 read (reads from)',
  WW: 'write \u2192 write (overwrites)',
  RW: 'read \u2192 write (anti-dependency)',
  RT: 'real-time order',
  CO: 'commit order',
};
