// The page's side of decode.worker.ts: a share link's fragment, decoded in a worker of its own.
import type { DecodedShare } from './share';

type Reply = { ok: true; payload: DecodedShare | null } | { ok: false; message: string };

/** The link's history and view (null: the fragment carries no history); rejects on a damaged link. */
export function decodeLink(fragment: string): Promise<DecodedShare | null> {
  const worker = new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module', name: 'share-link' });
  return new Promise<DecodedShare | null>((resolve, reject) => {
    worker.onmessage = (ev: MessageEvent<Reply>) => {
      const r = ev.data;
      if (r.ok) resolve(r.payload);
      else reject(new Error(r.message));
    };
    worker.onerror = (ev) => reject(new Error(ev.message || 'the share link could not be decoded'));
    worker.postMessage(fragment);
  }).finally(() => worker.terminate());
}
