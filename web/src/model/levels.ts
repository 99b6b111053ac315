// The isolation-level lattice as the page presents it (pure logic).
import type { LevelResult, Verdict } from '../core/types';
import vocabulary from '../../generated/levels.json';

export interface LevelDoc { name: string; summary: string }

// The levels are the core's (wasm/core/model/levels.h): the build writes their names, texts and
// lattice to web/generated/levels.json with `isoscope levels --json`.
interface LevelVocabulary { name: string; title: string; summary: string; group: string; implies: string[] }
const LEVELS: readonly LevelVocabulary[] = vocabulary;
const IMPLIED = new Map(LEVELS.map((l) => [l.name, new Set(l.implies)]));

export const LEVEL_DOCS: Record<string, LevelDoc> = Object.fromEntries(LEVELS.map((l) => [l.name, { name: l.title, summary: l.summary }]));

/** A group's levels, strongest first (a level implies the weaker ones of its group). */
function group(name: string): string[] {
  return LEVELS.filter((l) => l.group === name).sort((a, b) => b.implies.length - a.implies.length).map((l) => l.name);
}
/** Transactional chain, strongest first (SSER => SER => SI => PC => CC => RA => RR => RC). */
export const CHAIN = group('transactional');
/** Non-transactional causal models (single-operation histories): CCv and CM each imply WCC. */
export const CAUSAL = group('causal');
export const LINEAR = group('linearizability');

export interface LadderGroup { title: string; levels: string[] }

/** Groups of levels to show, strongest first, keeping only levels the core knows about. */
export function ladderGroups(known: string[]): LadderGroup[] {
  const k = new Set(known);
  const groups: LadderGroup[] = [
    { title: 'Transactional isolation', levels: CHAIN.filter((l) => k.has(l)) },
    { title: 'Causal models (single-operation histories)', levels: CAUSAL.filter((l) => k.has(l)) },
    { title: 'Linearizability', levels: LINEAR.filter((l) => k.has(l)) },
  ];
  const extra = known.filter((l) => !CHAIN.includes(l) && !CAUSAL.includes(l) && !LINEAR.includes(l));
  if (extra.length) groups.push({ title: 'Other', levels: extra });
  return groups.filter((g) => g.levels.length > 0);
}

/** Levels that pass and that no stronger passing level in their group implies (strongest first). */
export function strongestSatisfied(results: Record<string, LevelResult | undefined>, known: string[]): string[] {
  const out: string[] = [];
  const chain = CHAIN.filter((l) => known.includes(l));
  const top = chain.find((l) => results[l]?.verdict === 'pass');
  if (top) out.push(top);
  // in the other groups, each passing level that no other passing level implies (CCv and CM, else WCC)
  for (const levels of [CAUSAL, LINEAR]) {
    const passing = levels.filter((l) => results[l]?.verdict === 'pass');
    out.push(...passing.filter((l) => !passing.some((s) => implies(s, l))));
  }
  return out;
}

/** Whether a pass at `stronger` implies a pass at `weaker` (the chain, and CCv, CM => WCC). */
export function implies(stronger: string, weaker: string): boolean {
  return IMPLIED.get(stronger)?.has(weaker) ?? false;
}

/** The levels to run in the order the core decides them best (levels() gives each its order). */
export function inCheckOrder(levels: string[], infos: { level: string; order?: number }[]): string[] {
  const rank = new Map(infos.map((i) => [i.level, i.order ?? Number.MAX_SAFE_INTEGER]));
  return [...levels].sort((x, y) => (rank.get(x) ?? Number.MAX_SAFE_INTEGER) - (rank.get(y) ?? Number.MAX_SAFE_INTEGER));
}

export const VERDICT_LABEL: Record<Verdict | 'pending' | 'running', string> = {
  pass: 'Pass', fail: 'Fail', unknown: 'Unknown', 'n/a': 'N/A', pending: 'Queued', running: 'Checking\u2026',
};

/** One-line summary of a finished check, e.g. "Satisfies CC; fails PC, SI, SER". */
export function summarize(results: Record<string, LevelResult | undefined>, known: string[]): string {
  const best = strongestSatisfied(results, known);
  // every failing level, weakest first in each group: the chain, the causal models, LIN
  const fails = [CHAIN, CAUSAL, LINEAR].flatMap((g) => [...g].reverse()).filter((l) => results[l]?.verdict === 'fail');
  const unknown = known.filter((l) => results[l]?.verdict === 'unknown');
  const parts: string[] = [];
  if (best.length) parts.push(`Satisfies ${best.join(', ')}`);
  else if (fails.length) parts.push('Satisfies no checked level');
  if (fails.length) parts.push(`fails ${fails.join(', ')}`);
  if (unknown.length) parts.push(`unknown: ${unknown.join(', ')}`);
  return parts.join('; ') || 'No level checked';
}

export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

export function formatCount(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US');
}

/** A level in the page: a result, or still waiting or running (with the solver's progress). */
export type LevelState = Omit<LevelResult, 'verdict'> & {
  verdict: LevelResult['verdict'] | 'pending' | 'running';
  progress?: { settled: number; open: number };  // inside a long level (the strong solver)
};

/** The levels that have a verdict (neither pending nor running). */
export function finishedResults(results: Record<string, LevelState>): Record<string, LevelResult> {
  const out: Record<string, LevelResult> = {};
  for (const [level, state] of Object.entries(results)) if (!isBusy(state)) out[level] = state as LevelResult;
  return out;
}

export function isBusy(state: LevelState): boolean {
  return state.verdict === 'pending' || state.verdict === 'running';
}
