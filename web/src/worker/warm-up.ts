// A built-in check that warms a fresh core up before the user's file arrives. V8
// first runs wasm in its baseline code (Liftoff) and recompiles the functions that get hot with
// TurboFan on background threads: the first check of a fresh instance ran several times slower
// than the same check again. The page compiles the module once and every worker instantiates that one
// module (client.ts), whose optimised code they all share, so this check, run in a worker of
// its own while the page waits for a file, leaves the hot paths optimised for the user's first
// check. The histories are generated here, serializable by construction with repeated values
// (the choice of reads-from, the replay and the solver all run), in the formats most
// histories come in: isoscope JSON, dbcop's bincode and Cobra's logs.
import type { IsoscopeModule } from '../core/types';

type Op = [write: boolean, key: number, value: number];
interface Txn { ops: Op[]; start: number; end: number }

/** A deterministic pseudo-random source (xorshift32): an integer in [0, n). */
function random(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s % n;
  };
}

/**
 * Sessions of transactions run one at a time in a random session order, reading the current
 * value and writing values from 1..valueRange (so a value is written many times) to the first
 * hotKeys keys, and values written once to the others (an application's rows beside its flags
 * and counters). Every level holds: time windows overlap, but a transaction's end precedes
 * another's start only when it ran first.
 */
export function serialHistory(sessions: number, txnsPerSession: number, keys: number, valueRange: number, seed: number,
  hotKeys = keys): Txn[][] {
  const next = random(seed);
  let unique = valueRange;
  const state = new Array<number>(keys).fill(0);
  const out: Txn[][] = Array.from({ length: sessions }, () => []);
  const left = new Array<number>(sessions).fill(txnsPerSession);
  const lastEnd = new Array<number>(sessions).fill(0);
  for (let i = 1, remaining = sessions * txnsPerSession; remaining > 0; i++, remaining--) {
    let s = next(sessions);
    while (left[s] === 0) s = (s + 1) % sessions;
    left[s]--;
    const ops: Op[] = [];
    for (let n = 2 + next(4); n > 0; n--) {
      const key = next(keys);
      if (next(2)) ops.push([false, key, state[key]]);
      else ops.push([true, key, (state[key] = key < hotKeys ? 1 + next(valueRange) : ++unique)]);
    }
    const start = Math.max(lastEnd[s] + 1, 10 * i - next(40));
    out[s].push({ ops, start, end: (lastEnd[s] = 10 * i + 5) });
  }
  return out;
}

/** The history in isoscope's JSON format (docs: spec/history-format.md). */
export function isoscopeJson(h: Txn[][]): string {
  return JSON.stringify({
    format: 'isoscope/1', initial: 0,
    sessions: h.map((txns) => txns.map((t) => ({ ops: t.ops.map(([w, k, v]) => [w ? 'w' : 'r', `k${k}`, v]), start: t.start, end: t.end }))),
  });
}

/** The history as dbcop's history.bincode (no timestamps: that format has none). */
export function dbcopBincode(h: Txn[][]): Uint8Array {
  const bytes: number[] = [];
  const u8 = (v: number) => bytes.push(v);
  const u64 = (v: number) => { for (let i = 0; i < 8; i++) bytes.push(i < 4 ? (v >>> (8 * i)) & 0xff : 0); };
  const txns = h.reduce((n, s) => n + s.length, 0);
  for (const p of [0, h.length, 64, txns, txns * 5]) u64(p);
  for (const s of ['warm-up', '', '']) { u64(s.length); for (const c of s) u8(c.charCodeAt(0)); }
  u64(h.length);
  for (const session of h) {
    u64(session.length);
    for (const t of session) {
      u64(t.ops.length);
      for (const [w, k, v] of t.ops) { u8(w ? 1 : 0); u64(k); u64(v); u8(1); }
      u8(1);
    }
  }
  return new Uint8Array(bytes);
}

/**
 * The history as Cobra client logs, one file a session, as VeriStrong writes them with
 * repeated values: a read names no writer (0xabddefee, "any"), the write id is the value.
 */
export function cobraLogs(h: Txn[][]): [string, Uint8Array][] {
  const ANY = 0xabddefee, INITIAL = 0xbebeebee;
  let txn = 1;
  return h.map((session, s) => {
    const bytes: number[] = [];
    const u64 = (v: number) => { for (let i = 7; i >= 0; i--) bytes.push(i < 4 ? (v >>> (8 * i)) & 0xff : 0); };
    const tag = (c: string) => bytes.push(c.charCodeAt(0));
    for (const t of session) {
      tag('S'); u64(txn);
      for (const [w, k, v] of t.ops) {
        if (w) { tag('W'); u64(v); u64(k); u64(v); }
        else if (v === 0) { tag('R'); u64(INITIAL); u64(INITIAL); u64(k); u64(0); }
        else { tag('R'); u64(ANY); u64(v); u64(k); u64(v); }
      }
      tag('C'); u64(txn++);
    }
    return [`T${s}.log`, new Uint8Array(bytes)];
  });
}

/** The levels the warm-up checks, in the page's order (weak first, then strong). */
const LEVELS = ['RC', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER'];

export interface WarmUpReport { rounds: number; ms: number[] }

// 320 transactions each; the JSON one with 4 values a key (about 540 reads with a choice, which
// its timestamps narrow), the bincode one, without timestamps, with 32; Cobra logs of 960 on 600
// keys, 4 of them written with the values 1 and 2, the rest with values written once: shaped
// like VeriStrong's application histories (RUBiS, Twitter), whose schedule searches fail and
// whose solver decides, so those paths are optimised too (docs/benchmarks.md has the warm and
// cold figures). Made once per worker, on the first step.
let inputs: [string, Uint8Array][][] | null = null;
const warmUpInputs = () => (inputs ??= [
  [['warm-up.json', new TextEncoder().encode(isoscopeJson(serialHistory(8, 40, 24, 4, 21)))]],
  [['history.bincode', dbcopBincode(serialHistory(8, 40, 24, 32, 23))]],
  cobraLogs(serialHistory(8, 120, 600, 2, 25, 4)),
]);

/** Steps in a round of the warm-up: each history's load, then its check at each level. */
export const WARM_UP_ROUND_STEPS = 3 * (1 + LEVELS.length);

/**
 * One step of the warm-up (a load, or one level's check of the history loaded the step before;
 * the steps of a round in order): the page runs the warm-up a step at a time, each a request
 * of a few milliseconds to a few tens, so that a file arriving stops it at once (a worker's
 * terminate() lets a running wasm call finish, for up to 2 s in Chromium) and the same worker,
 * its core made, checks the file. Throws the core's errors: the caller ignores them (a warm-up
 * never fails a user's check).
 */
export function warmUpStep(core: IsoscopeModule, step: number): void {
  const k = step % WARM_UP_ROUND_STEPS;
  const files = warmUpInputs()[Math.floor(k / (1 + LEVELS.length))];
  const level = k % (1 + LEVELS.length);
  if (level === 0) expectOk(core.load(files.map(([name]) => name), files.map(([, blob]) => blob), ''));
  else expectOk(core.checkLevel(LEVELS[level - 1], 2000, 1));
}

/**
 * Loads each built-in history and checks every level on its own, `rounds` times (a function
 * gets optimised once it has run enough in the baseline code): the page's warm-up in one call
 * (scripts/bench-histories.mjs runs it so).
 */
export function warmUp(core: IsoscopeModule, rounds = 3): WarmUpReport {
  const ms: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const t0 = performance.now();
    for (let k = 0; k < WARM_UP_ROUND_STEPS; k++) warmUpStep(core, round * WARM_UP_ROUND_STEPS + k);
    ms.push(Math.round(performance.now() - t0));
  }
  return { rounds, ms };
}

function expectOk(json: string) {
  const r = JSON.parse(json) as { ok: boolean; error?: { message?: string } };
  if (!r.ok) throw new Error(`warm-up: ${r.error?.message ?? json}`);
}
