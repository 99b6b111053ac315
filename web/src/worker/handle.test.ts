import { describe, expect, it } from 'vitest';
import { strToU8, zipSync } from 'fflate';
import type { IsoscopeModule } from '../core/types';
import { MockIsoscope } from '../core/mock-core';
import { handleRequest } from './handle';

/** A stand-in core that records what load() receives and answers with a canned result. */
function recordingCore(answer: object) {
  const calls: { names: string[]; blobs: Uint8Array[]; format: string }[] = [];
  const core = { load: (names: string[], blobs: Uint8Array[], format: string) => { calls.push({ names, blobs, format }); return JSON.stringify(answer); } };
  return { core: core as unknown as IsoscopeModule, calls };
}
const buffer = (u: Uint8Array) => u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;

describe('the worker hands archives to the core', () => {
  it('passes a zip through unexpanded, beside other files', () => {
    const zip = zipSync({ 'logs/a.log': strToU8('A'), 'logs/b.log': strToU8('BB') });
    const { core, calls } = recordingCore({ ok: true, input: { format: 'cobra', sessions: 2 } });
    const res = handleRequest(core, { op: 'load', files: [{ name: 'run.zip', data: buffer(zip) }, { name: 'h.json', data: buffer(strToU8('{}')) }], format: '' });
    expect(res).toEqual({ ok: true, input: { format: 'cobra', sessions: 2 } });
    expect(calls).toHaveLength(1);
    expect(calls[0].names).toEqual(['run.zip', 'h.json']);
    expect([...calls[0].blobs[0]]).toEqual([...zip]);
    expect(calls[0].format).toBe('');
  });
  it("returns the core's archive errors as results, with file and position", () => {
    const error = { file: 'bad.zip, entry h/a.log', offset: 44, message: 'the compressed data ends early: expected a literal/length code' };
    const { core } = recordingCore({ ok: false, error });
    const res = handleRequest(core, { op: 'load', files: [{ name: 'bad.zip', data: buffer(strToU8('PK\x03\x04')) }], format: '' });
    expect(res).toEqual({ ok: false, error });
  });
  it('the mock core says it cannot read archives (only the wasm core expands them)', () => {
    const zip = zipSync({ 'h.json': strToU8('{"sessions": []}') });
    const res = handleRequest(new MockIsoscope(), { op: 'load', files: [{ name: 'h.zip', data: buffer(zip) }], format: '' }) as any;
    expect(res.ok).toBe(false);
    expect(res.error.message).toMatch(/archive/);
  });
});

describe('one archive implementation', () => {
  it('no app code but share links uses fflate (archives are the C++ core’s job)', () => {
    // every source file's text, through Vite's glob import (no Node types needed)
    const sources = import.meta.glob(['../**/*.ts', '!../**/*.test.ts'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
    expect(Object.keys(sources).length).toBeGreaterThan(10);
    const users = Object.entries(sources).filter(([, text]) => /from ['"]fflate['"]/.test(text)).map(([path]) => path);
    expect(users).toEqual(['../share/share.ts']);
  });
});

describe('progress inside a level', () => {
  it("forwards the core's (settled, open) reports and returns the result", () => {
    const core = {
      checkLevel: (_l: string, _b: number, _m: number, onProgress?: (settled: number, open: number) => void) => {
        onProgress?.(3, 7);
        onProgress?.(10, 0);
        return JSON.stringify({ verdict: 'pass', ms: 1 });
      },
    } as unknown as IsoscopeModule;
    const seen: unknown[] = [];
    const res = handleRequest(core, { op: 'checkLevel', level: 'SER', budgetMs: 0, maxAnomalies: 1 }, (p) => seen.push(p));
    expect(res).toEqual({ verdict: 'pass', ms: 1 });
    expect(seen).toEqual([{ settled: 3, open: 7 }, { settled: 10, open: 0 }]);
  });
});
