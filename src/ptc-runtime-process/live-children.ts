// How program children hold the host: the ones whose processes may still exist are killed
// synchronously, and their host temp dirs removed, if the host exits (an exit handler cannot wait for
// anything); an idle child does not keep the host's event loop alive (docs/runtime-lifecycle.md).

import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { SpawnedProcess } from '../sandbox/index.js';

/** What the exit hook does to a child. */
export interface LiveChild {
  killNow(): void;
  removeTempDirNow(): void;
}

const live = new Set<LiveChild>();
let exitHookInstalled = false;

/** Tracks `child` until forget(); installs the exit hook on first use. */
export function trackLive(child: LiveChild): void {
  live.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const each of live) each.killNow();
    for (const each of live) each.removeTempDirNow();
  });
}

export function forgetLive(child: LiveChild): void {
  live.delete(child);
}

/** `ref`: the child's process and streams keep the host's event loop alive (a run is attached). */
export function holdHost(proc: ChildProcess | SpawnedProcess, ref: boolean): void {
  if (ref) proc.ref();
  else proc.unref();
  for (const stream of proc.stdio) {
    const handle = stream as (Readable & { ref?: () => void; unref?: () => void }) | null;
    if (ref) handle?.ref?.();
    else handle?.unref?.();
  }
}
