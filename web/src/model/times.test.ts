import { describe, expect, it } from 'vitest';
import { formatSpan, formatTime, timeUnitOf } from './times';

describe('times', () => {
  it('show nanoseconds in ns, µs, ms or s', () => {
    expect(timeUnitOf('elle')).toBe('ns');
    expect(formatTime(2285931394, 'ns')).toBe('2.285931394 s');
    expect(formatTime(2216099000, 'ns')).toBe('2.216099 s');
    expect(formatTime(1500, 'ns')).toBe('1.5 \u00b5s');
    expect(formatTime(250, 'ns')).toBe('250 ns');
    expect(formatTime(2_300_000_000, 'ns', 100_000_000)).toBe('2.3 s');
    expect(formatTime(2_250_000_000, 'ns', 50_000_000)).toBe('2.25 s');
    expect(formatTime(40_000_000, 'ns', 20_000_000)).toBe('40 ms');
  });
  it('show times of an unknown unit as plain numbers, never in e-notation', () => {
    expect(timeUnitOf('isoscope')).toBe('');
    expect(formatTime(2216099000, '')).toBe('2216099000');
    expect(formatTime(2285931394, '', 500_000_000)).toBe('2285931394');
    expect(formatTime(0.5, '', 0.1)).toBe('0.5');
    expect(formatSpan(10, 25, '')).toBe('10 \u2192 25 (15 long)');
    expect(formatSpan(1_000_000, 3_500_000, 'ns')).toBe('1 ms \u2192 3.5 ms (2.5 ms)');
  });
});
