// Settling by freezing (docs/runtime-lifecycle.md, "Settling"): where a writable cgroup v1 freezer
// hierarchy exists (root on hosts with v1 or hybrid cgroups), each bwrap launch gets its own freezer
// group `ptc-harness/<owner tag>-<n>`, like its pids group. At the end of a run the group is frozen;
// once the kernel reports it FROZEN no task of it can run until it is thawed (a frozen task is not
// woken by any signal, SIGCONT and SIGKILL included), so the host sends SIGKILL to everything and
// resolves at once. The thaw, after which the killed tasks die and tear their address spaces down,
// waits for a pause in the runs (thawLater), so that teardown does not land on the next program.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FROZEN_THAW_QUIET_MS, MAX_FROZEN_WAITING } from './limits.js';
import { groupMembers, probeV1GroupRoot, V1Group } from './cgroup-v1.js';

let probed: { readonly root?: string; readonly detail?: string } | undefined;
let enabled = process.env['PTC_FREEZE'] !== 'off';

/** Where freezer groups are made, or undefined (and why) where they cannot be. Probed once. */
export function freezerSupport(): { readonly root?: string; readonly detail?: string } {
  probed ??= probeV1GroupRoot('freezer');
  return probed;
}

/** Turns settling by freezing on or off for launches from now on (`PTC_FREEZE=off` starts it off). */
export function setFreezeEnabled(on: boolean): void {
  enabled = on;
}

/** One launch's freezer group. */
export class FreezeGroup extends V1Group {
  /** Makes a group, or undefined where freezing is off or groups cannot be made here. */
  static create(): FreezeGroup | undefined {
    const { root } = freezerSupport();
    const path = enabled && root !== undefined ? V1Group.makeDir(root) : undefined;
    return path === undefined ? undefined : new FreezeGroup(path);
  }

  /** Asks the kernel to freeze every task of the group; frozen() says when it has. */
  freeze(): boolean {
    return this.#setState('FROZEN');
  }

  /** True once every task of the group is frozen (the kernel's FREEZING becomes FROZEN). */
  frozen(): boolean {
    try {
      return readFileSync(join(this.path, 'freezer.state'), 'latin1').trim() === 'FROZEN';
    } catch {
      return false;
    }
  }

  thaw(): void {
    this.#setState('THAWED');
  }

  #setState(state: 'FROZEN' | 'THAWED'): boolean {
    return writeState(this.path, state);
  }
}

function writeState(path: string, state: 'FROZEN' | 'THAWED'): boolean {
  try {
    writeFileSync(join(path, 'freezer.state'), state);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends what a dead host left in its freezer group at `path` (the stale sweep): SIGKILL to every
 * member, then the thaw, so none of them runs again before it dies. The group is removed later.
 */
export function endLeftoverGroup(path: string): void {
  for (const pid of groupMembers(path)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  writeState(path, 'THAWED');
}

/** Groups whose tasks are frozen with SIGKILL pending, oldest first, each with what waits for its thaw. */
const waiting: { readonly group: FreezeGroup; readonly thawed: () => void }[] = [];
let timer: NodeJS.Timeout | undefined;
/** Holds taken by warm runs in progress (holdThaws): the pause-driven thaw waits for them. */
let holds = 0;

/**
 * Thaws `group` (frozen, every task sent SIGKILL) once no other group was handed over for
 * FROZEN_THAW_QUIET_MS, or at once when more than MAX_FROZEN_WAITING are waiting (the oldest first), so
 * a burst of runs does not keep every finished sandbox's memory. Resolves after the thaw.
 */
export function thawLater(group: FreezeGroup): Promise<void> {
  return new Promise<void>((thawed) => {
    waiting.push({ group, thawed });
    while (waiting.length > MAX_FROZEN_WAITING) thawEntry(0);
    armThaw();
  });
}

/**
 * Holds the pause-driven thaw back while a warm run goes on, so earlier programs' teardown does not
 * land inside it (the pool's boot pause takes one: docs/runtime-lifecycle.md, "Warm runs before
 * boots"); call the result when the run ends. The MAX_FROZEN_WAITING bound still applies.
 */
export function holdThaws(): () => void {
  holds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    if (holds === 0 && waiting.length > 0) armThaw();
  };
}

function armThaw(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    if (holds === 0) thawAllNow();
  }, FROZEN_THAW_QUIET_MS);
  timer.unref();
}

/** Thaws `group` now if it is waiting (a kill on close or host exit must not wait for the pause). */
export function thawNow(group: FreezeGroup): void {
  const index = waiting.findIndex((entry) => entry.group === group);
  if (index !== -1) thawEntry(index);
}

/** Thaws every waiting group now. */
export function thawAllNow(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  while (waiting.length > 0) thawEntry(0);
}

function thawEntry(index: number): void {
  const [entry] = waiting.splice(index, 1);
  if (entry === undefined) return;
  entry.group.thaw();
  entry.thawed();
}
