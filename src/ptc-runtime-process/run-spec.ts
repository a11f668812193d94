// What a process runtime derives from a resolved run spec: the sandbox policy its child gets, the
// pool key (everything fixed when a child is spawned), and the request a foreign spec stands for.

import { ConfigError } from '../errors.js';
import type { ResolvedRunSpec, RunRequest } from '../ptc-runtime/types.js';
import type { WorkspacePolicy } from '../sandbox/index.js';

/** The run's policy: the runtime's process rule plus the request's paths and network (resolve()d). */
export function workspacePolicyOf(spec: ResolvedRunSpec, processes: boolean): WorkspacePolicy {
  return { cwd: spec.cwd, read: spec.policy.read, write: spec.policy.write, network: spec.policy.network, processes };
}

/** Everything about a run that is fixed when its child is spawned (binds, network, cwd). */
export function policyKeyOf(spec: ResolvedRunSpec): string {
  return JSON.stringify([spec.cwd, [...spec.policy.read].sort(), [...spec.policy.write].sort(), spec.policy.network]);
}

/** A spec that did not come from this runtime's resolve() is validated as the request it stands for. */
export function respecify(spec: ResolvedRunSpec): RunRequest {
  if (typeof spec !== 'object' || spec === null) throw new ConfigError('run() needs a spec returned by resolve().');
  const policy: unknown = spec.policy;
  const p = (typeof policy === 'object' && policy !== null ? policy : {}) as Partial<ResolvedRunSpec['policy']>;
  return {
    program: spec.program,
    bindings: spec.bindings,
    cwd: spec.cwd,
    timeoutMs: spec.timeoutMs,
    ...(spec.signal === undefined ? {} : { signal: spec.signal }),
    ...(spec.onLog === undefined ? {} : { onLog: spec.onLog }),
    ...(spec.memoryKey === undefined ? {} : { memoryKey: spec.memoryKey }),
    policy: {
      ...(p.read === undefined ? {} : { allowRead: p.read }),
      ...(p.write === undefined ? {} : { allowWrite: p.write }),
      ...(p.network === undefined ? {} : { network: p.network }),
    },
  };
}
