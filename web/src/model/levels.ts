// The isolation-level lattice as the page presents it (pure logic).
import type { LevelResult, Verdict } from '../core/types';

export interface LevelDoc { name: string; summary: string }

export const LEVEL_DOCS: Record<string, LevelDoc> = {
  SSER: { name: 'Strict serializability', summary: 'Serializable in an order that also respects real time: a transaction that finished before another started comes first.' },
  SER: { name: 'Serializability', summary: 'The outcome equals some one-at-a-time execution of the committed transactions.' },
  SI: { name: 'Snapshot isolation', summary: 'Each transaction reads one consistent snapshot, and no two concurrent transactions both write the same key.' },
  PC: { name: 'Prefix consistency', summary: 'Every transaction observes a prefix of one global commit order.' },
  CC: { name: 'Causal consistency', summary: 'A transaction sees everything that causally precedes what it sees, in every session.' },
  RA: { name: 'Read atomic', summary: 'A transaction sees all of another transaction\u2019s writes or none of them (no fractured reads).' },
  RR: { name: 'Repeatable read', summary: 'Reading a key twice in one transaction (before writing it) returns the same writer\u2019s value.' },
  RC: { name: 'Read committed', summary: 'Reads return committed data only, and never go back to older data within one transaction.' },
  WCC: { name: 'Weak causal consistency', summary: 'Single-operation model: each read is consistent with the causal order of writes it can see.' },
  CCv: { name: 'Causal convergence', summary: 'Weak causal consistency plus one arbitration order on which all replicas converge.' },
  CM: { name: 'Causal memory', summary: 'Weak causal consistency where each session\u2019s reads respect its own causal past.' },
  LIN: { name: 'Linearizability', summary: 'Every operation takes effect atomically at one instant between its invocation and its completion.' },
};

/** Transactional chain, strongest first (SSER => SER => SI => PC => CC => RA => RR => RC). */
export const CHAIN = ['SSER', 'SER', 'SI', 'PC', 'CC', 'RA', 'RR', 'RC'];
/** Non-transactional causal models (single-operation histories): CCv and CM each imply WCC. */
export const CAUSAL = ['CCv', 'CM', 'WCC'];
export const LINEAR = ['LIN'];

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
  const causal = ['CCv', 'CM'].filter((l) => results[l]?.verdict === 'pass');
  if (causal.length) out.push(...causal);
  else if (results.WCC?.verdict === 'pass') out.push('WCC');
  if (results.LIN?.verdict === 'pass') out.push('LIN');
  return out;
}

/** Whether a pass at `stronger` implies a pass at `weaker` (the chain, and CCv, CM => WCC). */
export function implies(stronger: string, weaker: string): boolean {
  const a = CHAIN.indexOf(stronger), b = CHAIN.indexOf(weaker);
  if (a >= 0 && b >= 0) return a < b;
  return weaker === 'WCC' && (stronger === 'CCv' || stronger === 'CM');
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
  const fails = [...[...CHAIN].reverse(), 'WCC', 'CM', 'CCv', ...LINEAR].filter((l) => results[l]?.verdict === 'fail');
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
