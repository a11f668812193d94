// The bubblewrap profile: which host paths a confined process sees and how. The argument builder is
// pure (host facts come in as a HostLayout) so the exact profile is unit-tested; readHostLayout()
// gathers those facts once per process.

import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { basename, dirname, posix } from 'node:path';
import { SANDBOX_SHM_MAX_BYTES, SANDBOX_TMP_MAX_BYTES } from './limits.js';
import { isWithin, realExecPath, realpathOrUndefined, type ResolvedPolicyPaths } from './policy.js';
import type { ProtectedBinds } from './protected-paths.js';

/**
 * The /etc entries a confined process may read, bound read-only when they exist. Everything else in
 * /etc is absent (so /etc/shadow, /etc/gshadow, /etc/ssl/private, /etc/sudoers, ssh keys and tool
 * configs that may hold tokens, such as /etc/npmrc or /etc/pip.conf, are never visible).
 */
export const SANDBOX_ETC_ENTRIES = [
  // Dynamic loader: libraries in dirs listed by ld.so.conf.d are only found through the cache.
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  // uid and gid names (`id`, `ls -l`, os.userInfo()); the password hashes live in shadow, not here.
  '/etc/passwd',
  '/etc/group',
  // Name resolution ("localhost" must resolve even without network) and service/protocol names.
  '/etc/nsswitch.conf',
  '/etc/host.conf',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  // Time zone and TLS trust anchors (public certificates only, not /etc/ssl/private).
  '/etc/localtime',
  '/etc/timezone',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  // Debian's alternatives: /usr/bin/awk and friends are symlinks through here.
  '/etc/alternatives',
  '/etc/os-release',
] as const;

/** Top-level dirs that usrmerge turns into symlinks into /usr; bound or linked as the host has them. */
export const SANDBOX_ROOT_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/** Facts about the host's file system layout that shape the profile. */
export interface HostLayout {
  /** Top-level symlinks into /usr to recreate (`--symlink target path`), e.g. `{ path: '/bin', target: 'usr/bin' }`. */
  readonly rootLinks: readonly { readonly path: string; readonly target: string }[];
  /** Real top-level dirs (or links leading outside /usr, by their real path) to bind read-only at `path`. */
  readonly rootBinds: readonly { readonly path: string; readonly source: string }[];
  /** Existing entries of {@link SANDBOX_ETC_ENTRIES}. */
  readonly etc: readonly string[];
  /** The Node install to bind read-only when it is not under /usr (a prefix dir, or the binary alone). */
  readonly nodeInstall?: string;
}

let cachedLayout: HostLayout | undefined;

/** Reads the host layout once per process. */
export function readHostLayout(): HostLayout {
  cachedLayout ??= scanHostLayout();
  return cachedLayout;
}

function scanHostLayout(): HostLayout {
  const rootLinks: { path: string; target: string }[] = [];
  const rootBinds: { path: string; source: string }[] = [];
  for (const path of SANDBOX_ROOT_DIRS) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      continue;
    }
    const real = realpathOrUndefined(path);
    if (real === undefined) continue;
    if (isLink && isWithin(real, '/usr')) rootLinks.push({ path, target: readlinkSync(path) });
    else if (!isWithin(real, '/usr')) rootBinds.push({ path, source: real });
  }
  const etc = SANDBOX_ETC_ENTRIES.filter((entry) => existsSync(entry));
  return { rootLinks, rootBinds, etc, ...nodeInstallOf(realExecPath()) };
}

function nodeInstallOf(realNode: string): { nodeInstall?: string } {
  if (isWithin(realNode, '/usr')) return {};
  // A standard layout (<prefix>/bin/node) is bound whole (npm lives in <prefix>/lib); a lone binary
  // elsewhere is bound alone so its neighbours stay hidden.
  const binDir = dirname(realNode);
  return { nodeInstall: basename(binDir) === 'bin' ? dirname(binDir) : realNode };
}

/** Everything the bwrap argument list is built from. */
export interface BwrapProfileInput {
  readonly layout: HostLayout;
  readonly paths: ResolvedPolicyPaths;
  /** Protected entries inside the writable roots (findProtectedBinds); none when omitted. */
  readonly protect?: ProtectedBinds;
  /** Real paths the runtime itself reads (bootstrap), bound read-only. */
  readonly runtimeRead: readonly string[];
  readonly network: boolean;
  readonly env: Readonly<Record<string, string>>;
  /** Size of the private /tmp in bytes (default SANDBOX_TMP_MAX_BYTES). */
  readonly tmpMaxBytes?: number;
  /**
   * Destinations to hide (docs/security.md, "Host-only directories"): each gets an empty read-only
   * tmpfs, mounted after every bind of a parent, and nothing else is mounted at or inside one.
   * planBwrap computes them with hostOnlyMasks (host-only-mounts.ts).
   */
  readonly hidden: readonly string[];
  /** The child fd number bwrap reads the seccomp filter from, when a filter applies. */
  readonly seccompFd?: number;
  /** The child fd number bwrap waits on for one byte before it starts the command (`--block-fd`). */
  readonly blockFd?: number;
  readonly command: string;
  readonly args: readonly string[];
}

/** The fixed head of every profile: new namespaces of every kind, no capabilities, no inherited env. */
export const BWRAP_BASE_ARGS = [
  '--unshare-all',
  '--die-with-parent',
  '--new-session',
  '--clearenv',
  '--cap-drop',
  'ALL',
] as const;

interface Mount {
  readonly dest: string;
  readonly args: readonly string[];
  /** The host path shown at `dest`, for a bind. */
  readonly source?: string;
}

/** A host path a profile binds into the sandbox and where it appears there. */
export interface HostBind {
  readonly source: string;
  readonly dest: string;
}

/** What decides a profile's binds. */
export type BwrapBindsInput = Pick<BwrapProfileInput, 'layout' | 'paths' | 'protect' | 'runtimeRead' | 'tmpMaxBytes'>;

/**
 * Every host path buildBwrapArgs binds (system dirs, /etc entries, the Node install, the runtime's
 * files, the policy paths, the protected entries), before any is hidden: what the host-only check
 * looks at. Pure, from the same list the arguments are made of.
 */
export function hostBinds(input: BwrapBindsInput): HostBind[] {
  return profileMounts(input).flatMap((mount) => (mount.source === undefined ? [] : [{ source: mount.source, dest: mount.dest }]));
}

/**
 * Builds bwrap's arguments (without the bwrap executable itself). Mounts are ordered by the depth of
 * their destination so a parent is always mounted before what is mounted inside it, whatever the
 * policy paths are; for the same destination the later category wins (system < private mounts <
 * runtime < read < cwd < write < protected < hidden). cwd is bound read-only when the policy says so
 * (docs/approvals.md, "Programs"). Protected entries are bound read-only over the writable binds,
 * a missing `.git`/`.ptc` at a root gets an empty read-only tmpfs, and the directories leading to a
 * nested one are bound onto themselves so they cannot be renamed away (docs/sandbox.md). Each
 * `hidden` dir gets an empty read-only tmpfs over whatever bind of a parent shows it, and nothing is
 * mounted at or inside it (docs/security.md, "Host-only directories"). The root and /dev tmpfs are remounted read-only last, so a write
 * outside the writable binds fails (EROFS) instead of landing in a throwaway file; the private /tmp
 * and /dev/shm are sized, since tmpfs pages are memory the runtime's RSS watchdog cannot see.
 */
export function buildBwrapArgs(input: BwrapProfileInput): string[] {
  const { paths } = input;
  const hidden = [...new Set(input.hidden)];
  const mounts: Mount[] = [
    // Nothing lands at or inside a hidden dir (a protected entry found there by the walk would
    // otherwise be bound over the mask), and each mask is the last category at its depth.
    ...profileMounts(input).filter((mount) => !hidden.some((dir) => isWithin(mount.dest, dir))),
    ...hidden.map((dir) => ({ dest: dir, args: ['--tmpfs', dir, '--remount-ro', dir] })),
  ];
  const ordered = mounts
    .map((mount, index) => ({ mount, index, depth: pathDepth(mount.dest) }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index)
    .flatMap(({ mount }) => mount.args);

  const env = Object.keys(input.env)
    .sort()
    .flatMap((key) => ['--setenv', key, input.env[key] ?? '']);
  return [
    ...BWRAP_BASE_ARGS,
    ...(input.network ? ['--share-net'] : []),
    ...ordered,
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
    '--chdir',
    paths.cwd,
    ...env,
    ...(input.seccompFd === undefined ? [] : ['--seccomp', String(input.seccompFd)]),
    ...(input.blockFd === undefined ? [] : ['--block-fd', String(input.blockFd)]),
    '--',
    input.command,
    ...input.args,
  ];
}

/** The profile's mounts in category order (system < private mounts < runtime < read < cwd < write < protected). */
function profileMounts(input: BwrapBindsInput): Mount[] {
  const { layout, paths } = input;
  const ro = (path: string, source = path): Mount => ({ dest: path, source, args: ['--ro-bind', source, path] });
  const rw = (path: string): Mount => ({ dest: path, source: path, args: ['--bind', path, path] });
  return [
    ro('/usr'),
    ...layout.rootLinks.map((link) => ({ dest: link.path, args: ['--symlink', link.target, link.path] })),
    ...layout.rootBinds.map((bind) => ro(bind.path, bind.source)),
    ...(layout.nodeInstall === undefined ? [] : [ro(layout.nodeInstall)]),
    ...layout.etc.map((entry) => ro(entry)),
    { dest: '/proc', args: ['--proc', '/proc'] },
    { dest: '/dev', args: ['--dev', '/dev'] },
    { dest: '/dev/shm', args: ['--size', String(SANDBOX_SHM_MAX_BYTES), '--tmpfs', '/dev/shm'] },
    { dest: '/tmp', args: ['--size', String(input.tmpMaxBytes ?? SANDBOX_TMP_MAX_BYTES), '--tmpfs', '/tmp'] },
    ...input.runtimeRead.map((path) => ro(path)),
    ...paths.read.map((path) => ro(path)),
    paths.cwdReadOnly === true ? ro(paths.cwd) : rw(paths.cwd),
    ...paths.write.map((path) => rw(path)),
    // `-try`: an entry removed since it was found must not fail the launch.
    ...(input.protect?.pins ?? []).map((path) => ({ dest: path, source: path, args: ['--bind-try', path, path] })),
    ...(input.protect?.existing ?? []).map((path) => ({ dest: path, source: path, args: ['--ro-bind-try', path, path] })),
    ...(input.protect?.placeholders ?? []).map((path) => ({ dest: path, args: ['--tmpfs', path, '--remount-ro', path] })),
  ];
}

function pathDepth(path: string): number {
  const normal = posix.normalize(path);
  return normal === '/' ? 0 : normal.split('/').length - 1;
}
