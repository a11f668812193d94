// What a process runtime derives from a resolved run spec: the sandbox policy its child gets, the
// pool key (everything fixed when a child is spawned), and the request a foreign spec stands for.

import { ConfigError } from '../errors.js';
import type { ResolvedRunSpec, RunRequest } from '../ptc-runtime/types.js';
import type { WorkspacePolicy } from '../sandbox/index.js';

/** The run's policy: the runtime's process rule plus the request's paths and network (resolve()d). */
export function workspacePolicyOf(spec: ResolvedRunSpec, processes: boolean): WorkspacePolicy {
  const { read, write, network, protect, readOnlyWorkspace } = spec.policy;
  return { cwd: spec.cwd, read, write, network, processes, protect: protect ?? [], readOnlyWorkspace: readOnlyWorkspace === true };
}

/** Everything about a run that is fixed when its child is spawned (binds, network, cwd, read-only workspace). */
export function policyKeyOf(spec: ResolvedRunSpec): string {
  const p = spec.policy;
  return JSON.stringify([spec.cwd, [...p.read].sort(), [...p.write].sort(), p.network, [...(p.protect ?? [])].sort(), p.readOnlyWorkspace === true]);
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
      ...(p.protect === undefined ? {} : { protect: p.protect }),
      ...(p.readOnlyWorkspace === undefined ? {} : { readOnlyWorkspace: p.readOnlyWorkspace }),
    },
  };
}
