// The layers of the app, asserted from the sources (as tests/native/architecture/layering_test.cpp
// does for the core): core/ and model/ know no DOM, no worker and no view; dom/ is below every
// view; the checking and worker layers never reach into the views.
import { describe, expect, it } from 'vitest';

const sources = import.meta.glob(['./**/*.ts', '!./**/*.test.ts'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** Every file's imports, as folders of src/ ("core", "model", ...; "" for src/ itself). */
function importedFolders(path: string, text: string): string[] {
  const here = path.split('/').slice(1, -1);
  const out: string[] = [];
  for (const m of text.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)) {
    const spec = m[1];
    if (!spec.startsWith('.')) continue;
    const parts = [...here];
    for (const seg of spec.split('/')) {
      if (seg === '..') parts.pop();
      else if (seg !== '.') parts.push(seg);
    }
    out.push(parts.length > 1 ? parts[0] : '');
  }
  return out;
}

const allowed: Record<string, string[]> = {
  core: ['core'],
  model: ['core', 'model', 'generated'],  // generated: the core's vocabularies, written by the build
  dom: ['core', 'dom'],  // core: its types (a long name's parts)
  load: ['core', 'worker', 'load'],
  share: ['core', 'share'],
  worker: ['core', 'model', 'worker'],
  check: ['core', 'model', 'worker', 'check'],
  timeline: ['core', 'model', 'dom', 'timeline'],
  diagram: ['core', 'model', 'dom', 'diagram'],
  history: ['core', 'model', 'dom', 'history'],
  hermitage: ['core', 'model', 'dom', 'hermitage'],
};

describe('web layers', () => {
  it('every folder imports only from the folders below it', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const [path, text] of Object.entries(sources)) {
      const folder = path.split('/')[1];
      const rule = allowed[folder];
      if (!rule) continue; // ui/, embed/, main.ts: the front ends may use everything
      for (const to of importedFolders(path, text)) if (!rule.includes(to)) wrong.push(`${path} imports from ${to || 'src/'}`);
    }
    expect(wrong).toEqual([]);
  });
});
