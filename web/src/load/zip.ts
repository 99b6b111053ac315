// Expands zip archives among the dropped files (runs inside the worker). Pure apart from fflate.
import { unzipSync } from 'fflate';

export interface NamedBlob { name: string; data: Uint8Array }

export const MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024 - 1; // what one wasm heap can hold at most
export const MAX_ENTRIES = 100_000;

export function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

/** Files of interest inside an archive: no directories, no macOS resource forks or dot files. */
export function keepEntry(name: string): boolean {
  if (name.endsWith('/')) return false;
  const parts = name.split('/');
  const base = parts[parts.length - 1];
  return !parts.includes('__MACOSX') && !base.startsWith('.');
}

/** Replaces every zip by its entries (named archive/entry), sorted by name; refuses zip bombs. */
export function expandZips(files: NamedBlob[], limit = MAX_TOTAL_BYTES): NamedBlob[] {
  const out: NamedBlob[] = [];
  let total = 0;
  for (const f of files) {
    if (!isZip(f.data)) {
      total += f.data.length;
      out.push(f);
      continue;
    }
    let entries = 0;
    let declared = 0;
    const unz = unzipSync(f.data, {
      filter: (info) => {
        if (!keepEntry(info.name)) return false;
        entries++;
        declared += info.originalSize;
        if (entries > MAX_ENTRIES) throw new Error(`${f.name}: more than ${MAX_ENTRIES} entries`);
        if (total + declared > limit) throw new Error(`${f.name}: expands to more than ${Math.round(limit / 2 ** 20)} MB`);
        return true;
      },
    });
    const names = Object.keys(unz).sort();
    for (const n of names) {
      total += unz[n].length;
      if (total > limit) throw new Error(`${f.name}: expands to more than ${Math.round(limit / 2 ** 20)} MB`);
      out.push({ name: `${f.name.replace(/\.zip$/i, '')}/${n}`, data: unz[n] });
    }
    if (names.length === 0) throw new Error(`${f.name}: the archive holds no files`);
  }
  return out;
}
