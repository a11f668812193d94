// planLaunch: picks the backend for a mode (docs/sandbox.md) and turns a policy into a launch plan.
// `off` -> none; `auto` -> bwrap, else node-permission for Node, else none; `required` -> bwrap or
// SANDBOX_UNAVAILABLE. launch() (launch.ts) spawns the plan and releases it.

import { ConfigError, SandboxUnavailableError } from '../errors.js';
import { buildBwrapArgs, hostBinds, readHostLayout } from './bwrap.js';
import { openFilterFd, releaseOnce } from './filter-fd.js';
import { hostOnlyMasks, refuseHostOnlyAllowed, type LabelledPath } from './host-only-mounts.js';
import { buildNodePermissionArgs, nodePermissionFlag } from './node-permission.js';
import { realpathOrUndefined, resolvePolicyPaths } from './policy.js';
import { excludeWritableRoots } from './private-dir.js';
import { findProtectedBinds } from './protected-paths.js';
import { probeSandbox } from './probe.js';
import { runtimeReadPaths } from './runtime-read-paths.js';
import { buildSandboxFilter, encodeFilter, hasSeccompRules, type SeccompRules } from './seccomp-filter.js';
import type { LaunchPlan, LaunchRequest, SandboxBackendName, SandboxEnforcement, SandboxMode } from './types.js';

/** What each backend enforces (the bwrap process level depends on the seccomp filter, see planBwrap). */
export const NONE_ENFORCEMENT: SandboxEnforcement = Object.freeze({ fs: 'none', network: 'none', process: 'none' });
export const NODE_PERMISSION_ENFORCEMENT: SandboxEnforcement = Object.freeze({
  fs: 'partial',
  network: 'none',
  process: 'partial',
});

/** Plans the launch of one confined process. See {@link LaunchRequest} and docs/sandbox.md. */
export async function planLaunch(request: LaunchRequest): Promise<LaunchPlan> {
  validateRequest(request);
  // Before anything reads or makes host-private state for this launch (the probe cache first): its
  // writable roots must not hold that state (docs/security.md, "Host-private state").
  if (request.mode !== 'off') excludeWritableRoots([request.policy.cwd, ...request.policy.write]);
  const backend = await selectBackend(request.mode, request.kind);
  if (backend === 'bwrap') {
    const probe = await probeSandbox();
    return planBwrap(request, probe.bwrapPath as string, probe.seccomp);
  }
  return backend === 'node-permission' ? planNodePermission(request) : planNone(request);
}

/**
 * The backend planLaunch will choose for a mode and a kind of command, known before the policy is
 * built (a program child makes a host temp dir only when the backend has no private /tmp). Rejects
 * with SANDBOX_UNAVAILABLE like planLaunch.
 */
export async function selectBackend(mode: SandboxMode, kind: LaunchRequest['kind']): Promise<SandboxBackendName> {
  if (mode === 'off') return 'none';
  const probe = await probeSandbox();
  if (probe.bwrapPath !== undefined) return 'bwrap';
  if (mode === 'required') {
    throw new SandboxUnavailableError(
      `Sandbox mode "required" needs bubblewrap, which is not usable here (${probe.detail ?? 'unknown reason'}). ` +
        'Install it (`apt-get install bubblewrap`) or run with `--sandbox auto` to use the strongest backend available.',
    );
  }
  return kind === 'node' ? 'node-permission' : 'none';
}

function planNone(request: LaunchRequest): LaunchPlan {
  return {
    backend: 'none',
    enforced: NONE_ENFORCEMENT,
    command: request.command,
    args: [...request.args],
    env: { ...request.policy.env },
    cwd: request.policy.cwd,
    passFds: [],
    passBytes: [],
    signalExitCodes: false,
    asyncIoDenied: false,
    gated: false,
    release: () => undefined,
  };
}

function planBwrap(request: LaunchRequest, bwrapPath: string, seccompAvailable: boolean): LaunchPlan {
  const { policy } = request;
  const paths = resolvePolicyPaths(policy);
  const layout = readHostLayout();
  const runtimeRead = runtimeReadPaths(request);
  // Before anything is opened: a bound path inside a host-only dir is refused, and every host-only
  // dir a bind would show gets a mask (docs/security.md, "Host-only directories"). Protected
  // entries are left out: they lie inside writable roots, and buildBwrapArgs drops those in a mask.
  const hidden = hostOnlyMasks(hostBinds({ layout, paths, runtimeRead }), requestedPaths(policy));
  // A read-only workspace needs no protected binds: nothing in it can be written or created.
  const writableRoots = paths.cwdReadOnly === true ? [] : [paths.cwd, ...paths.write];
  const protect = findProtectedBinds(writableRoots, paths.protect ?? []);
  // Without a filter for this architecture, a policy that denies processes cannot be honoured:
  // children are still confined and killed with the namespace, so process enforcement is partial.
  const rules: SeccompRules = {
    denySpawn: !policy.processes,
    // The network namespace hides every host port but not a socket file in a bound path.
    denyUnixSockets: !policy.network,
    killSignalExitCodes: request.truthfulExit === true,
    // Always: settlement's fast path needs every write to end inside its own system call.
    denyAsyncIo: true,
    denyUserNamespaces: request.denyUserNamespaces === true,
  };
  const filter = !hasSeccompRules(rules) || !seccompAvailable ? undefined : buildSandboxFilter(rules);
  const filterBytes = filter === undefined ? undefined : encodeFilter(filter);
  const filterFd = filterBytes === undefined ? undefined : openFilterFd(filterBytes);
  const passFds = filterFd === undefined ? [] : [filterFd];
  const release = releaseOnce(passFds);
  try {
    const args = buildBwrapArgs({
      layout,
      paths,
      protect,
      runtimeRead,
      hidden,
      network: policy.network,
      env: policy.env,
      ...(request.tmpMaxBytes === undefined ? {} : { tmpMaxBytes: request.tmpMaxBytes }),
      ...(filterFd === undefined ? {} : { seccompFd: request.firstFreeFd }),
      ...(request.gated === true ? { blockFd: request.firstFreeFd + passFds.length } : {}),
      command: request.kind === 'node' ? (realpathOrUndefined(request.command) ?? request.command) : request.command,
      args: request.args,
    });
    const processLevel = policy.processes || (filter !== undefined && rules.denySpawn) ? 'full' : 'partial';
    return {
      backend: 'bwrap',
      enforced: Object.freeze({ fs: 'full', network: 'full', process: processLevel }),
      command: bwrapPath,
      args,
      // bwrap itself gets nothing: --clearenv plus --setenv gives the sandboxed process policy.env.
      env: {},
      cwd: paths.cwd,
      passFds,
      passBytes: filterBytes === undefined ? [] : [filterBytes],
      // bwrap reports a child killed by signal N as exit code 128 + N; with the exit rule no process
      // in the sandbox can exit with such a code itself (docs/sandbox.md, "Memory").
      signalExitCodes: filter !== undefined && rules.killSignalExitCodes,
      asyncIoDenied: filter !== undefined && rules.denyAsyncIo,
      gated: request.gated === true,
      release,
    };
  } catch (error) {
    release();
    throw error;
  }
}

function planNodePermission(request: LaunchRequest): LaunchPlan {
  const paths = resolvePolicyPaths(request.policy);
  const flags = buildNodePermissionArgs({
    layout: readHostLayout(),
    paths,
    runtimeRead: runtimeReadPaths(request),
    permissionFlag: nodePermissionFlag(),
  });
  // Node cannot hide a directory inside an allowed one: a launch that would allow a host-only dir
  // (or a parent of it) is refused (docs/security.md, "Host-only directories").
  refuseHostOnlyAllowed(allowedByFlags(flags), requestedPaths(request.policy));
  return {
    backend: 'node-permission',
    enforced: NODE_PERMISSION_ENFORCEMENT,
    command: request.command,
    args: [...flags, ...request.args],
    env: { ...request.policy.env },
    cwd: paths.cwd,
    passFds: [],
    passBytes: [],
    signalExitCodes: false,
    asyncIoDenied: false,
    gated: false,
    release: () => undefined,
  };
}

/** The policy's own paths as given (a missing one is never bound, but asking for one is refused too). */
function requestedPaths(policy: LaunchRequest['policy']): LabelledPath[] {
  return [
    { path: policy.cwd, what: 'workspace' },
    ...policy.read.map((path) => ({ path, what: 'read path' })),
    ...policy.write.map((path) => ({ path, what: 'write path' })),
  ];
}

/** The paths the permission flags allow. */
function allowedByFlags(flags: readonly string[]): LabelledPath[] {
  const out: LabelledPath[] = [];
  for (const [prefix, what] of [['--allow-fs-read=', 'allowed for reading'], ['--allow-fs-write=', 'allowed for writing']] as const) {
    for (const flag of flags) if (flag.startsWith(prefix)) out.push({ path: flag.slice(prefix.length), what });
  }
  return out;
}

function validateRequest(request: LaunchRequest): void {
  if (!Number.isInteger(request.firstFreeFd) || request.firstFreeFd < 3) {
    throw new ConfigError(`firstFreeFd must be an integer >= 3, got ${String(request.firstFreeFd)}.`);
  }
  for (const [key, value] of Object.entries(request.policy.env)) {
    if (key === '' || key.includes('=') || key.includes('\0') || value.includes('\0')) {
      throw new ConfigError(`sandbox env entry "${key}" is not a valid environment variable.`);
    }
  }
}
