import type { Principal } from '../domain/identity/principal.js';
import type { Holdfast } from './embed-api.js';
import type { Runtime } from './runtime/compose.js';

/** What stands behind an embedded Holdfast, for the entries that build on it (holdfast/deltat). */
export interface EmbeddedHandle {
  readonly runtime: Runtime;
  readonly principal: Principal;
}

const handles = new WeakMap<Holdfast, EmbeddedHandle>();

export function rememberEmbedded(holdfast: Holdfast, handle: EmbeddedHandle): Holdfast {
  handles.set(holdfast, handle);
  return holdfast;
}

export function embeddedHandle(holdfast: Holdfast): EmbeddedHandle {
  const handle = handles.get(holdfast);
  if (!handle) throw new TypeError('Pass the object createHoldfast (from "holdfast") resolved with.');
  return handle;
}
