// Where this harness may make per-run groups in a cgroup v1 hierarchy (docs/sandbox.md, "Processes"):
// `<mount>/<this process's own group>/ptc-harness`, when the controller is mounted at
// /sys/fs/cgroup/<controller> and that directory can be made (root on most hosts with v1 or hybrid
// cgroups). Used by the pids cap (task-limit.ts) and the settle's freezer (freezer.ts).

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The directory under each hierarchy that holds every harness's groups. */
export const HARNESS_GROUP_DIR = 'ptc-harness';

export interface V1GroupRoot {
  /** The directory holding this harness's groups, when groups can be made. */
  readonly root?: string;
  /** Why they cannot, for diagnostics and docs. */
  readonly detail?: string;
}

/** Probes whether per-run groups of `controller` can be made here (call once and keep the answer). */
export function probeV1GroupRoot(controller: 'pids' | 'freezer'): V1GroupRoot {
  const mount = `/sys/fs/cgroup/${controller}`;
  const own = ownV1Group(controller, mount);
  if (own === undefined) return { detail: `no cgroup v1 ${controller} hierarchy is mounted at ${mount} (cgroup v2 delegation is not used)` };
  const root = join(mount, own, HARNESS_GROUP_DIR);
  try {
    mkdirSync(root, { recursive: true });
    readFileSync(join(mount, own, 'cgroup.procs'));
    return { root };
  } catch (error) {
    return { detail: `cannot create ${controller} groups under ${root}: ${(error as Error).message}` };
  }
}

/** This process's group in the controller's v1 hierarchy, from /proc/self/cgroup (`N:pids:/path`). */
function ownV1Group(controller: string, mount: string): string | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
    readFileSync(join(mount, 'cgroup.procs'));
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [, controllers, path] = line.split(':');
    if (controllers !== undefined && controllers.split(',').includes(controller) && path !== undefined) return path;
  }
  return undefined;
}

/** The processes in a group now, from its cgroup.procs (empty when it cannot be read). */
export function groupMembers(path: string): number[] {
  let text: string;
  try {
    text = readFileSync(join(path, 'cgroup.procs'), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map(Number).filter((pid) => Number.isInteger(pid) && pid > 0);
}
