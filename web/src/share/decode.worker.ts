/// <reference lib="webworker" />
// Decodes a share link off the page's main thread: inflating a link's history (up to 64 MB)
// held the main thread for over a second when one key was 8 MiB long.
import { decodeFragmentBytes } from './share';

self.onmessage = (ev: MessageEvent<string>) => {
  const post = (self as unknown as Worker).postMessage.bind(self);
  try {
    const p = decodeFragmentBytes(ev.data);
    post({ ok: true, payload: p }, p ? [p.data] : []);
  } catch (e) {
    post({ ok: false, message: (e as Error).message });
  }
};
