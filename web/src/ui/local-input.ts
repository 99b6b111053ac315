// The last dropped or pasted input, kept in this browser's IndexedDB (never sent anywhere), so
// that a reload of its page (?input=local) shows it again. One input at a time; inputs over
// MAX_KEPT_BYTES are not kept (the quota of a private window is small).
import type { InFile } from '../worker/protocol';

const DB = 'isoscope';
const STORE = 'inputs';
const KEY = 'last';
export const MAX_KEPT_BYTES = 200 * 1024 * 1024;

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function run<T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = f(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = tx.onabort = () => reject(tx.error ?? req.error);
    });
  } finally {
    db.close();
  }
}

/** Keeps files as the last input; false when it cannot (too large, no IndexedDB, no quota). */
export async function keepLocally(files: InFile[], format: string): Promise<boolean> {
  if (files.reduce((n, f) => n + f.data.byteLength, 0) > MAX_KEPT_BYTES) return false;
  try {
    await run('readwrite', (s) => s.put({ files: files.map((f) => ({ name: f.name, data: f.data })), format }, KEY));
    return true;
  } catch {
    return false;
  }
}

/** The last input kept, or null. */
export async function keptLocally(): Promise<{ files: InFile[]; format: string } | null> {
  try {
    const v = await run<{ files: InFile[]; format: string } | undefined>('readonly', (s) => s.get(KEY));
    return v && Array.isArray(v.files) ? v : null;
  } catch {
    return null;
  }
}
