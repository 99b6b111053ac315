// A large serializable history (canonical JSON): `sessions` sessions, `n` transactions in total,
// executed round-robin in one serial order, each reading a key's latest value and writing it.
export function bigHistory(n, sessions = 10, keys = 1000) {
  const last = new Array(keys).fill(0);
  const ss = Array.from({ length: sessions }, () => []);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % keys);
  for (let i = 1; i <= n; i++) {
    const k = rnd();
    const k2 = rnd();
    ss[i % sessions].push(`[["r",${k},${last[k]}],["r",${k2},${last[k2]}],["w",${k},${i}]]`);
    last[k] = i;
  }
  return `{"format":"isoscope/1","initial":0,"sessions":[${ss.map((s) => `[${s.join(',')}]`).join(',\n')}]}`;
}
