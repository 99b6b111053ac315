// Turns what the user gives us (a drop, a picker, pasted text) into named byte buffers.
import type { InFile } from '../worker/protocol';

export const MAX_INPUT_BYTES = 1.5 * 1024 ** 3;
const MAX_FILES = 20_000;

export class InputError extends Error {}

function ignorable(name: string) {
  const base = name.split('/').pop() ?? name;
  return base.startsWith('.') || name.includes('__MACOSX/');
}

async function readEntries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
    if (batch.length === 0) return all;
    all.push(...batch);
    if (all.length > MAX_FILES) throw new InputError(`the folder holds more than ${MAX_FILES} files`);
  }
}

/**
 * The files under entries, into out: the files of one folder asked for all at once (each is a
 * round trip to the browser: one after another, 24 files took 20-40 ms), the folders in turn.
 */
async function walk(entries: FileSystemEntry[], prefix: string, out: { name: string; file: File }[]) {
  const files = entries.filter((e): e is FileSystemFileEntry => e.isFile);
  const got: File[] = await Promise.all(files.map((e) => new Promise<File>((res, rej) => e.file(res, rej))));
  files.forEach((e, i) => { if (!ignorable(prefix + e.name)) out.push({ name: prefix + e.name, file: got[i] }); });
  if (out.length > MAX_FILES) throw new InputError(`more than ${MAX_FILES} files`);
  // depth bounded by the path
  for (const dir of entries.filter((e): e is FileSystemDirectoryEntry => e.isDirectory)) await walk(await readEntries(dir), `${prefix}${dir.name}/`, out);
}

export async function filesFromDataTransfer(dt: DataTransfer): Promise<InFile[]> {
  const collected: { name: string; file: File }[] = [];
  const items = dt.items ? [...dt.items].filter((i) => i.kind === 'file') : [];
  // webkitGetAsEntry: absent from some browsers (then the plain file list)
  const entries = items.map((i) => (typeof i.webkitGetAsEntry === 'function' ? i.webkitGetAsEntry() : null));
  if (entries.length && entries.every((e): e is FileSystemEntry => !!e)) {
    await walk(entries, '', collected);
  } else {
    for (const f of dt.files) collected.push({ name: f.name, file: f });
  }
  if (collected.length === 0) {
    const text = dt.getData('text/plain');
    if (text) return fromText(text);
  }
  return readAll(collected);
}

export async function filesFromList(list: FileList | File[]): Promise<InFile[]> {
  return readAll([...list].map((f) => ({ name: f.webkitRelativePath || f.name, file: f })).filter((x) => !ignorable(x.name)));
}

export async function readAll(items: { name: string; file: File }[]): Promise<InFile[]> {
  if (items.length === 0) throw new InputError('nothing to load: no files');
  const total = items.reduce((a, b) => a + b.file.size, 0);
  if (total > MAX_INPUT_BYTES) throw new InputError(`the input is ${(total / 2 ** 30).toFixed(1)} GB; the browser checker takes at most ${MAX_INPUT_BYTES / 2 ** 30} GB (use the isoscope command line)`);
  items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return Promise.all(items.map(async ({ name, file }) => ({ name, data: await file.arrayBuffer() })));
}

export function fromText(text: string, name = 'pasted.txt'): InFile[] {
  const data = new TextEncoder().encode(text);
  return [{ name, data: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer }];
}

/** Short human description of an input: "h.json" or "cobra/ (12 files)". */
export function describeInput(files: { name: string; data: ArrayBuffer }[]): string {
  if (files.length === 1) return files[0].name;
  const roots = new Set(files.map((f) => f.name.split('/')[0]));
  const root = roots.size === 1 && files[0].name.includes('/') ? `${[...roots][0]}/` : `${files.length} files`;
  return roots.size === 1 && files[0].name.includes('/') ? `${root} (${files.length} files)` : root;
}

export function totalBytes(files: { data: ArrayBuffer }[]): number {
  return files.reduce((a, f) => a + f.data.byteLength, 0);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
