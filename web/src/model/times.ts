// Times as the page shows them, in one format. Histories give start and end in "any one unit"
// (docs/formats.md); Jepsen's (Elle's) are nanoseconds, shown in ns, µs, ms or s. Times of an
// unknown unit are shown as the integers they are (never 2.216099e+09).

/** A history's unit (its LoadedHistory's, loaded.ts): nanoseconds, or unknown. */
export type TimeUnit = 'ns' | '';

/** The unit of a format's times, when the format says. */
export function timeUnitOf(format: string | undefined): TimeUnit {
  return format === 'elle' ? 'ns' : '';
}

const SCALES: [number, string][] = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']];

function plain(t: number): string {
  if (Number.isInteger(t)) return Math.abs(t) < 1e21 ? t.toFixed(0) : String(t);
  return String(Number(t.toPrecision(12)));
}

/**
 * One time: exact ("2.285931394 s", "2285931394"); with `step` (an axis's tick spacing), as
 * many decimals as the step needs ("2.29 s").
 */
export function formatTime(t: number, unit: TimeUnit, step?: number): string {
  if (!Number.isFinite(t)) return '';
  if (unit !== 'ns') {
    if (step === undefined || step >= 1) return plain(step !== undefined ? Math.round(t) : t);
    return t.toFixed(Math.min(12, Math.ceil(-Math.log10(step))));
  }
  // an axis keeps one unit for all its ticks: the one a few dozen steps make
  const size = (step !== undefined ? step * 20 : Math.abs(t)) || 1;
  const [scale, name] = SCALES.find(([s]) => size >= s) ?? SCALES[SCALES.length - 1];
  const v = t / scale;
  if (step !== undefined) return `${v.toFixed(Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9)))} ${name}`;
  // exact: the nanoseconds' digits, without trailing zeros
  const digits = Math.round(Math.log10(scale));
  return `${Number.isInteger(t) ? trimZeros((t / scale).toFixed(digits)) : String(Number(v.toPrecision(12)))} ${name}`;
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** "start → end (duration)" for a transaction's detail. */
export function formatSpan(start: number, end: number, unit: TimeUnit): string {
  return `${formatTime(start, unit)} \u2192 ${formatTime(end, unit)} (${unit === 'ns' ? formatTime(end - start, unit) : `${plain(end - start)} long`})`;
}
