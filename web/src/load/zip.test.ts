import { describe, expect, it } from 'vitest';
import { zipSync, strToU8 } from 'fflate';
import { expandZips, isZip, keepEntry } from './zip';

describe('zip input', () => {
  it('expands archives and skips junk entries', () => {
    const z = zipSync({ 'logs/a.log': strToU8('A'), 'logs/b.log': strToU8('BB'), '__MACOSX/x': strToU8('x'), 'logs/.DS_Store': strToU8('d') });
    expect(isZip(z)).toBe(true);
    const out = expandZips([{ name: 'run.zip', data: z }, { name: 'h.json', data: strToU8('{}') }]);
    expect(out.map((f) => f.name)).toEqual(['run/logs/a.log', 'run/logs/b.log', 'h.json']);
    expect(keepEntry('dir/')).toBe(false);
  });
  it('refuses archives that expand beyond the limit', () => {
    const z = zipSync({ 'big.txt': new Uint8Array(1 << 20) });
    expect(() => expandZips([{ name: 'bomb.zip', data: z }], 1000)).toThrow(/expands to more than/);
  });
  it('rejects empty archives', () => {
    expect(() => expandZips([{ name: 'e.zip', data: zipSync({ '.hidden': strToU8('x') }) }])).toThrow(/no files/);
  });
});
