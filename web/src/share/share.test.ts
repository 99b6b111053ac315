import { describe, expect, it } from 'vitest';
import { deflateSync } from 'fflate';
import { decodeFragment, encodeFragment, fromBase64Url, inflateLimited, toBase64Url } from './share';

describe('share links', () => {
  it('round-trips base64url', () => {
    const b = new Uint8Array(300).map((_, i) => (i * 37) & 255);
    expect(fromBase64Url(toBase64Url(b))).toEqual(b);
    expect(toBase64Url(b)).not.toMatch(/[+/=]/);
  });
  it('round-trips a history and the view', () => {
    const history = JSON.stringify({ format: 'isoscope/1', sessions: [[[['w', 'x', 1]]]] });
    const f = encodeFragment({ history, view: { level: 'SI', anomaly: 1, tab: 'history' } });
    const p = decodeFragment('#' + f)!;
    expect(p.history).toBe(history);
    expect(p.view).toEqual({ level: 'SI', anomaly: 1, tab: 'history' });
    expect(p.counterexample).toBe(false);
  });
  it('keeps an object history\'s key in view, by name', () => {
    for (const key of ['7', 'a key & more=1', '']) {
      const p = decodeFragment('#' + encodeFragment({ history: '[]', view: { level: 'LIN', tab: 'timeline', key } }))!;
      expect(p.view).toEqual({ level: 'LIN', tab: 'timeline', key });
    }
    expect(decodeFragment('#' + encodeFragment({ history: '[]', view: {} }) + '&k=' + 'x'.repeat(201))!.view).toEqual({});
  });
  it('ignores fragments without a history and rejects junk', () => {
    expect(decodeFragment('#foo=1')).toBeNull();
    expect(() => decodeFragment('#h=!!!')).toThrow(/damaged/);
    expect(() => decodeFragment('#h=AAAA')).toThrow();
  });
  it('sanitizes the view', () => {
    const f = encodeFragment({ history: '{}', view: {} }) + '&l=<script>&a=-4&t=x"y';
    expect(decodeFragment(f)!.view).toEqual({});
  });
  it('refuses deflate bombs', () => {
    const big = deflateSync(new Uint8Array(3 * 1024 * 1024));
    expect(() => inflateLimited(big, 2 * 1024 * 1024)).toThrow(/more than 2 MB/);
    expect(inflateLimited(big).length).toBe(3 * 1024 * 1024);
  });
});
