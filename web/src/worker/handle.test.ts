import { describe, expect, it } from 'vitest';
import { strToU8, zipSync } from 'fflate';
import type { IsoscopeModule } from '../core/types';
import { CoreFailure } from '../core/result';
import { handleRequest } from './handle';

/** A stand-in core that records what load() receives and answers with a canned {ok, value|error}. */
function recordingCore(answer: object) {
  const calls: { names: string[]; blobs: Uint8Array[]; format: string }[] = [];
  const core = { load: (names: string[], blobs: Uint8Array[], format: string) => { calls.push({ names, blobs, format }); return JSON.stringify(answer); } };
  return { core: core as unknown as IsoscopeModule, calls };
}
const buffer = (u: Uint8Array) => u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;

describe('the worker hands archives to the core', () => {
  it('passes a zip through unexpanded, beside other files', () => {
    const zip = zipSync({ 'logs/a.log': strToU8('A'), 'logs/b.log': strToU8('BB') });
    const { core, calls } = recordingCore({ ok: true, value: { format: 'cobra', sessions: 2 } });
    const res = handleRequest(core, { op: 'load', files: [{ name: 'run.zip', data: buffer(zip) }, { name: 'h.json', data: buffer(strToU8('{}')) }], format: '' });
    expect(res).toEqual({ format: 'cobra', sessions: 2 });
    expect(calls).toHaveLength(1);
    expect(calls[0].names).toEqual(['run.zip', 'h.json']);
    expect([...calls[0].blobs[0]]).toEqual([...zip]);
    expect(calls[0].format).toBe('');
  });
  it("throws the core's archive errors as a CoreFailure that keeps file and position", () => {
    const error = { file: 'bad.zip, entry h/a.log', offset: 44, message: 'the compressed data ends early: expected a literal/length code' };
    const { core } = recordingCore({ ok: false, error });
    let thrown: unknown;
    try {
      handleRequest(core, { op: 'load', files: [{ name: 'bad.zip', data: buffer(strToU8('PK\x03\x04')) }], format: '' });
    } catch (e) { thrown = e; }
    expect(thrown).toBeInstanceOf(CoreFailure);
    expect((thrown as CoreFailure).detail).toEqual(error);
    expect((thrown as CoreFailure).message).toBe(error.message);
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
        return JSON.stringify({ ok: true, value: { verdict: 'pass', ms: 1 } });
      },
    } as unknown as IsoscopeModule;
    const seen: unknown[] = [];
    const res = handleRequest(core, { op: 'checkLevel', level: 'SER', budgetMs: 0, maxAnomalies: 1 }, (p) => seen.push(p));
    expect(res).toEqual({ verdict: 'pass', ms: 1 });
    expect(seen).toEqual([{ settled: 3, open: 7 }, { settled: 10, open: 0 }]);
  });
});

describe('a level as it stands', () => {
  it('levelResult returns the core’s current entry of a decided level', () => {
    const core = {
      levelResult: (l: string) => JSON.stringify(l === 'SSER'
        ? { ok: true, value: { verdict: 'fail', ms: 1, anomalies: [{ kind: 'RealTimeViolation' }] } }
        : { ok: false, error: { message: `${l} has not been checked: call checkLevel first` } }),
    } as unknown as IsoscopeModule;
    expect(handleRequest(core, { op: 'levelResult', level: 'SSER' })).toEqual({ verdict: 'fail', ms: 1, anomalies: [{ kind: 'RealTimeViolation' }] });
    expect(() => handleRequest(core, { op: 'levelResult', level: 'SER' })).toThrow(/has not been checked/);
  });
});
