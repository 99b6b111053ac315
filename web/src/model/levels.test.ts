import { describe, expect, it } from 'vitest';
import { ladderGroups, strongestSatisfied, summarize, formatMs, implies, inCheckOrder } from './levels';
import type { LevelResult } from '../core/types';
import { describeKind, humanizeKind } from './anomalies';

const known = ['RC', 'RR', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER'];

describe('levels', () => {
  it('knows which passes imply which (the chain, and CCv, CM => WCC; LIN apart)', () => {
    expect(implies('SSER', 'PC')).toBe(true);
    expect(implies('SER', 'RC')).toBe(true);
    expect(implies('PC', 'SER')).toBe(false);
    expect(implies('CCv', 'WCC')).toBe(true);
    expect(implies('SSER', 'WCC')).toBe(false);
    expect(implies('SSER', 'LIN')).toBe(false);
    expect(implies('LIN', 'RC')).toBe(false);
  });
  it('runs the levels in the core\'s order', () => {
    const infos = ['RC', 'RR', 'RA', 'CC', 'SSER', 'SER', 'SI', 'PC'].map((level, order) => ({ level, order }));
    expect(inCheckOrder(['RC', 'PC', 'SI', 'SER', 'SSER'], infos)).toEqual(['RC', 'SSER', 'SER', 'SI', 'PC']);
    expect(inCheckOrder(['PC', 'XYZ', 'RC'], infos)).toEqual(['RC', 'PC', 'XYZ']);
  });
  it('orders the ladder strongest first and groups causal models', () => {
    const g = ladderGroups([...known, 'WCC', 'CCv', 'CM', 'LIN', 'XYZ']);
    expect(g[0].levels).toEqual(['SSER', 'SER', 'SI', 'PC', 'CC', 'RA', 'RR', 'RC']);
    expect(g[1].levels).toEqual(['CCv', 'CM', 'WCC']);
    expect(g[2].levels).toEqual(['LIN']);
    expect(g[3].levels).toEqual(['XYZ']);
    expect(ladderGroups(['RC']).length).toBe(1);
  });
  it('finds the strongest satisfied level', () => {
    const r: Record<string, LevelResult> = { RC: { verdict: 'pass' }, RR: { verdict: 'pass' }, RA: { verdict: 'pass' }, CC: { verdict: 'pass' }, PC: { verdict: 'fail' }, SI: { verdict: 'fail' }, SER: { verdict: 'fail' }, SSER: { verdict: 'n/a' } };
    expect(strongestSatisfied(r, known)).toEqual(['CC']);
    expect(summarize(r, known)).toBe('Satisfies CC; fails PC, SI, SER');
    expect(strongestSatisfied({ RC: { verdict: 'fail' } } as Record<string, LevelResult>, known)).toEqual([]);
    expect(summarize({ RC: { verdict: 'fail' } } as Record<string, LevelResult>, known)).toBe('Satisfies no checked level; fails RC');
    expect(strongestSatisfied({ WCC: { verdict: 'pass' }, CM: { verdict: 'pass' } } as Record<string, LevelResult>, ['WCC', 'CM'])).toEqual(['CM']);
    expect(strongestSatisfied({ WCC: { verdict: 'pass' } } as Record<string, LevelResult>, ['WCC'])).toEqual(['WCC']);
  });
  it('mentions a failing LIN and causal model', () => {
    expect(summarize({ WCC: { verdict: 'pass' }, CCv: { verdict: 'fail' }, LIN: { verdict: 'fail' } } as Record<string, LevelResult>, ['WCC', 'CCv', 'LIN'])).toBe('Satisfies WCC; fails CCv, LIN');
    expect(summarize({ LIN: { verdict: 'fail' } } as Record<string, LevelResult>, ['LIN'])).toBe('Satisfies no checked level; fails LIN');
  });
  it('mentions unknown levels', () => {
    expect(summarize({ RC: { verdict: 'pass' }, SER: { verdict: 'unknown' } } as Record<string, LevelResult>, known)).toBe('Satisfies RC; unknown: SER');
  });
  it('formats durations', () => {
    expect(formatMs(0.25)).toBe('0.25 ms');
    expect(formatMs(3.21)).toBe('3.2 ms');
    expect(formatMs(1500)).toBe('1.50 s');
    expect(formatMs(undefined)).toBe('');
  });
  it('names anomaly kinds', () => {
    expect(describeKind('LostUpdate').title).toBe('Lost update');
    expect(describeKind('SomethingNew').title).toBe('Something new');
    expect(humanizeKind('G2_item')).toBe('G2 item');
  });
});
