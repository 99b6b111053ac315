// Share links: the history travels in the URL fragment (never sent to any server), deflated
// with fflate and base64url-encoded. Pure logic; the page does the clipboard work.
import { deflateSync, Inflate } from 'fflate';

/** Longest link we hand out; beyond it we share a minimal counterexample or refuse. */
export const MAX_LINK_CHARS = 512 * 1024;
/** Largest history a link may expand to (guards against deflate bombs in hostile links). */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** Longest input name a link carries. */
export const MAX_NAME_CHARS = 200;

export interface ViewState {
  level?: string;
  anomaly?: number;
  tab?: string;
  /** the input's name (a file, a folder), shown by whoever opens the link */
  name?: string;
  /** an object history's key in the Timeline (by name) */
  key?: string;
}

export interface SharePayload {
  history: string; // canonical JSON text
  view: ViewState;
  counterexample?: boolean;
}

export function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  const CH = 0x8000;
  for (let i = 0; i < bytes.length; i += CH) s += String.fromCharCode(...bytes.subarray(i, i + CH));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('the link is damaged (not base64url)');
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

export function inflateLimited(data: Uint8Array, limit = MAX_INFLATED_BYTES): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let over = false;
  const inf = new Inflate((chunk) => {
    total += chunk.length;
    if (total > limit) over = true;
    else chunks.push(chunk);
  });
  const STEP = 64 * 1024;
  for (let i = 0; i < data.length && !over; i += STEP) inf.push(data.subarray(i, i + STEP), i + STEP >= data.length);
  if (over) throw new Error(`the shared history expands to more than ${limit / 2 ** 20} MB`);
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) { out.set(c, o); o += c.length; }
  return out;
}

export function encodeView(v: ViewState): string {
  const parts: string[] = [];
  if (v.level) parts.push(`l=${encodeURIComponent(v.level)}`);
  if (v.anomaly !== undefined) parts.push(`a=${v.anomaly}`);
  if (v.tab) parts.push(`t=${encodeURIComponent(v.tab)}`);
  if (v.name) parts.push(`n=${encodeURIComponent(v.name.slice(0, MAX_NAME_CHARS))}`);
  if (v.key !== undefined && v.key.length <= MAX_NAME_CHARS) parts.push(`k=${encodeURIComponent(v.key)}`);
  return parts.join('&');
}

/** The fragment (without '#') for a payload. */
export function encodeFragment(p: SharePayload): string {
  const z = deflateSync(new TextEncoder().encode(p.history), { level: 9 });
  const view = encodeView(p.view);
  return `h=${toBase64Url(z)}${p.counterexample ? '&c=1' : ''}${view ? '&' + view : ''}`;
}

/** A decoded link: the history's bytes (canonical JSON) as the page loads them. */
export interface DecodedShare {
  data: ArrayBuffer;
  view: ViewState;
  counterexample: boolean;
}

/** Parses a fragment; null when it carries no history. Throws on damaged or oversized links. */
export function decodeFragment(fragment: string): SharePayload | null {
  const p = decodeFragmentBytes(fragment);
  return p && { history: new TextDecoder().decode(p.data), view: p.view, counterexample: p.counterexample };
}

/**
 * decodeFragment without making the history a string (the page loads bytes): what the page's
 * link worker runs (decode.worker.ts), off the main thread.
 */
export function decodeFragmentBytes(fragment: string): DecodedShare | null {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  const h = params.get('h');
  if (!h) return null;
  const bytes = inflateLimited(fromBase64Url(h));
  const view: ViewState = {};
  const l = params.get('l');
  if (l && /^[A-Za-z]{1,8}$/.test(l)) view.level = l;
  const a = Number(params.get('a'));
  if (params.has('a') && Number.isInteger(a) && a >= 0 && a < 1000) view.anomaly = a;
  const t = params.get('t');
  if (t && /^[a-z]{1,16}$/.test(t)) view.tab = t;
  // shown with textContent only; control characters are dropped
  const n = params.get('n')?.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_NAME_CHARS);
  if (n) view.name = n;
  // a key is matched against the history's own key names, never shown as given
  const k = params.get('k');
  if (k !== null && k.length <= MAX_NAME_CHARS) view.key = k;
  // inflateLimited's result is a buffer of its own, exactly the history's bytes
  return { data: bytes.buffer as ArrayBuffer, view, counterexample: params.get('c') === '1' };
}
