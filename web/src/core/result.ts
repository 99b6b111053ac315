// The one convention of the core's answers (docs/wasm-api.md): {"ok": true, "value"} or
// {"ok": false, "error"}. The value is returned; the error is thrown as a CoreFailure, which keeps
// its location (file, line, column, byte) across the worker boundary.
import type { CoreResult, ParseError } from './types';

/** An error the core reported (a bad input, an unknown level): located, never a crash. */
export class CoreFailure extends Error {
  constructor(readonly detail: ParseError) {
    super(detail.text ?? detail.message);
    this.name = 'CoreFailure';
  }
}

/**
 * The core trapped or threw inside a core worker (not a located CoreFailure). The worker is then
 * retired: whatever comes next (the next history, the next level) runs in a fresh worker with a
 * fresh module instance, and the message says so to the user.
 */
export class CoreCrash extends Error {
  constructor(readonly cause: string) {
    super(`the checker stopped unexpectedly (${cause}); what follows runs in a fresh instance of it`);
    this.name = 'CoreCrash';
  }
}

export function unwrap<T>(json: string): T {
  const r = JSON.parse(json) as CoreResult<T>;
  if (!r.ok) throw new CoreFailure(r.error);
  return r.value;
}
