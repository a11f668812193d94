import { existsSync, lstatSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { SANDBOX_SHM_MAX_BYTES, SANDBOX_TMP_MAX_BYTES } from './limits.js';
import {
  BWRAP_BASE_ARGS,
  SANDBOX_ETC_ENTRIES,
  buildBwrapArgs,
  hostBinds,
  readHostLayout,
  type BwrapProfileInput,
  type HostLayout,
} from './bwrap.js';

const layout: HostLayout = {
  rootLinks: [
    { path: '/bin', target: 'usr/bin' },
    { path: '/lib', target: 'usr/lib' },
  ],
  rootBinds: [{ path: '/lib64', source: '/lib64' }],
  etc: ['/etc/passwd', '/etc/ssl/certs'],
  nodeInstall: '/opt/node',
};

function args(overrides: Partial<BwrapProfileInput> = {}): string[] {
  return buildBwrapArgs({
    layout,
    paths: { cwd: '/tmp/ws', read: [], write: [] },
    runtimeRead: [],
    network: false,
    env: { PATH: '/usr/bin', HOME: '/tmp/ws' },
    command: '/usr/bin/node',
    args: ['boot.js', '--flag'],
    ...overrides,
    hidden: overrides.hidden ?? [],
  });
}

/** The mount operations in order, as [option, ...operands] tuples. */
function mounts(list: string[]): string[][] {
  const arity: Record<string, number> = { '--ro-bind': 2, '--bind': 2, '--ro-bind-try': 2, '--bind-try': 2, '--symlink': 2, '--proc': 1, '--dev': 1, '--tmpfs': 1 };
  const out: string[][] = [];
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '--size') {
      // A size belongs to the tmpfs right after it.
      out.push([...list.slice(i, i + 2), ...list.slice(i + 2, i + 4)]);
      i += 3;
      continue;
    }
    const n = arity[list[i]!];
    if (n !== undefined) {
      out.push(list.slice(i, i + 1 + n));
      i += n;
    }
  }
  return out;
}

const dests = (list: string[]): string[] => mounts(list).map((m) => m[m.length - 1]!);

describe('buildBwrapArgs', () => {
  it('starts with the fixed isolation options and ends with -- and the command', () => {
    const list = args();
    expect(list.slice(0, BWRAP_BASE_ARGS.length)).toEqual([
      '--unshare-all', '--die-with-parent', '--new-session', '--clearenv', '--cap-drop', 'ALL',
    ]);
    expect(list.slice(list.indexOf('--'))).toEqual(['--', '/usr/bin/node', 'boot.js', '--flag']);
    expect(list).not.toContain('--share-net');
    expect(list).not.toContain('--seccomp');
  });

  it('gives the exact profile for a workspace under /tmp', () => {
    expect(mounts(args())).toEqual([
      ['--ro-bind', '/usr', '/usr'],
      ['--symlink', 'usr/bin', '/bin'],
      ['--symlink', 'usr/lib', '/lib'],
      ['--ro-bind', '/lib64', '/lib64'],
      ['--proc', '/proc'],
      ['--dev', '/dev'],
      ['--size', String(SANDBOX_TMP_MAX_BYTES), '--tmpfs', '/tmp'],
      ['--ro-bind', '/opt/node', '/opt/node'],
      ['--ro-bind', '/etc/passwd', '/etc/passwd'],
      ['--size', String(SANDBOX_SHM_MAX_BYTES), '--tmpfs', '/dev/shm'],
      ['--bind', '/tmp/ws', '/tmp/ws'],
      ['--ro-bind', '/etc/ssl/certs', '/etc/ssl/certs'],
    ]);
  });

  it('shares the network only when the policy allows it', () => {
    expect(args({ network: true })).toContain('--share-net');
  });

  it('passes the seccomp fd before the command', () => {
    const list = args({ seccompFd: 4 });
    const at = list.indexOf('--seccomp');
    expect(list.slice(at, at + 2)).toEqual(['--seccomp', '4']);
    expect(at).toBeLessThan(list.indexOf('--'));
  });

  it('sets each env variable explicitly, sorted, after clearing the environment', () => {
    const list = args({ env: { B: '2', A: 'x y=z' } });
    const sets = list.flatMap((arg, i) => (arg === '--setenv' ? [list.slice(i + 1, i + 3)] : []));
    expect(sets).toEqual([['A', 'x y=z'], ['B', '2']]);
  });

  it('mounts parents before children whatever the policy, with writable binds winning on ties', () => {
    const list = args({
      paths: { cwd: '/srv/a/ws', read: ['/srv', '/data/ro'], write: ['/data/ro/rw'] },
      runtimeRead: ['/opt/boot/child.js'],
    });
    const order = dests(list);
    const before = (a: string, b: string): boolean => order.indexOf(a) < order.indexOf(b);
    expect(before('/srv', '/srv/a/ws')).toBe(true);
    expect(before('/data/ro', '/data/ro/rw')).toBe(true);
    expect(before('/tmp', '/opt/boot/child.js')).toBe(true);
    expect(mounts(list)).toContainEqual(['--bind', '/data/ro/rw', '/data/ro/rw']);
    expect(mounts(list)).toContainEqual(['--ro-bind', '/srv', '/srv']);
    expect(mounts(list)).toContainEqual(['--ro-bind', '/opt/boot/child.js', '/opt/boot/child.js']);
  });

  it('makes /dev and the root read-only after every mount and then enters the workspace', () => {
    const list = args();
    const remount = list.indexOf('--remount-ro');
    const lastMount = Math.max(...['--bind', '--ro-bind', '--tmpfs', '--proc', '--dev', '--symlink'].map((o) => list.lastIndexOf(o)));
    expect(remount).toBeGreaterThan(lastMount);
    expect(list.slice(remount, remount + 6)).toEqual(['--remount-ro', '/dev', '--remount-ro', '/', '--chdir', '/tmp/ws']);
  });
});

describe('the /etc allowlist', () => {
  it('never names a secret', () => {
    const entries: readonly string[] = SANDBOX_ETC_ENTRIES;
    for (const secret of ['/etc/shadow', '/etc/gshadow', '/etc/ssl/private', '/etc/sudoers', '/etc/ssh', '/etc/npmrc']) {
      expect(entries.some((entry) => entry === secret || secret.startsWith(`${entry}/`))).toBe(false);
    }
    expect(entries.some((entry) => entry === '/etc' || entry === '/etc/ssl')).toBe(false);
  });
});

describe('readHostLayout on this machine', () => {
  it('recreates usrmerge links as links and binds only existing allowlisted /etc entries', () => {
    const host = readHostLayout();
    for (const link of host.rootLinks) expect(lstatSync(link.path).isSymbolicLink()).toBe(true);
    for (const entry of host.etc) {
      expect(SANDBOX_ETC_ENTRIES).toContain(entry);
      expect(existsSync(entry)).toBe(true);
    }
  });
});

describe('buildBwrapArgs: protected paths and a read-only workspace', () => {
  it('binds protected entries read-only over the workspace, pins their parents, and puts a read-only tmpfs where one is missing', () => {
    const list = args({
      protect: { existing: ['/tmp/ws/.git', '/tmp/ws/vendor/lib/.git'], placeholders: ['/tmp/ws/.ptc'], pins: ['/tmp/ws/vendor', '/tmp/ws/vendor/lib'] },
    });
    const ops = mounts(list);
    const at = (dest: string) => ops.findIndex((m) => m[m.length - 1] === dest);
    expect(ops[at('/tmp/ws')]).toEqual(['--bind', '/tmp/ws', '/tmp/ws']);
    expect(ops[at('/tmp/ws/.git')]).toEqual(['--ro-bind-try', '/tmp/ws/.git', '/tmp/ws/.git']);
    expect(ops[at('/tmp/ws/vendor')]).toEqual(['--bind-try', '/tmp/ws/vendor', '/tmp/ws/vendor']);
    expect(ops[at('/tmp/ws/vendor/lib/.git')]).toEqual(['--ro-bind-try', '/tmp/ws/vendor/lib/.git', '/tmp/ws/vendor/lib/.git']);
    // Parents before what is mounted inside them.
    expect(at('/tmp/ws')).toBeLessThan(at('/tmp/ws/vendor'));
    expect(at('/tmp/ws/vendor')).toBeLessThan(at('/tmp/ws/vendor/lib'));
    expect(at('/tmp/ws/vendor/lib')).toBeLessThan(at('/tmp/ws/vendor/lib/.git'));
    const tmpfs = list.indexOf('/tmp/ws/.ptc');
    expect(list.slice(tmpfs - 1, tmpfs + 3)).toEqual(['--tmpfs', '/tmp/ws/.ptc', '--remount-ro', '/tmp/ws/.ptc']);
  });

  it('a read-only workspace binds cwd read-only and keeps the private dirs writable', () => {
    const ops = mounts(args({ paths: { cwd: '/tmp/ws', read: ['/srv/extra'], write: ['/tmp/ptc-run-1'], cwdReadOnly: true } }));
    expect(ops).toContainEqual(['--ro-bind', '/tmp/ws', '/tmp/ws']);
    expect(ops).toContainEqual(['--bind', '/tmp/ptc-run-1', '/tmp/ptc-run-1']);
    expect(ops).not.toContainEqual(['--bind', '/tmp/ws', '/tmp/ws']);
  });
});

describe('buildBwrapArgs: hidden dirs (host-only)', () => {
  const root = '/tmp/ptc-exec-0';
  const at = (list: string[], mount: string[]): number => mounts(list).findIndex((m) => JSON.stringify(m) === JSON.stringify(mount));

  it('mounts an empty read-only tmpfs over a hidden dir after the bind of the workspace that contains it', () => {
    const list = args({ paths: { cwd: '/tmp', read: [], write: [] }, hidden: [root] });
    const tmpfs = list.indexOf(root);
    expect(list.slice(tmpfs - 1, tmpfs + 3)).toEqual(['--tmpfs', root, '--remount-ro', root]);
    expect(at(list, ['--bind', '/tmp', '/tmp'])).toBeGreaterThan(-1);
    expect(at(list, ['--bind', '/tmp', '/tmp'])).toBeLessThan(at(list, ['--tmpfs', root]));
    // Still before the final read-only remounts and the command.
    expect(tmpfs).toBeLessThan(list.indexOf('--chdir'));
  });

  it('wins over a read bind of a parent and over a writable bind at the same depth as itself', () => {
    const list = args({ paths: { cwd: '/srv/ws', read: ['/tmp'], write: ['/'] }, hidden: [root] });
    expect(at(list, ['--ro-bind', '/tmp', '/tmp'])).toBeLessThan(at(list, ['--tmpfs', root]));
    expect(at(list, ['--bind', '/', '/'])).toBeLessThan(at(list, ['--tmpfs', root]));
    // The mask is the last mount at or above its depth.
    const depthOf = (m: string[]): number => (m[m.length - 1] as string).split('/').length - 1;
    const masked = at(list, ['--tmpfs', root]);
    expect(mounts(list).slice(masked + 1).every((m) => depthOf(m) > 2)).toBe(true);
  });

  it('mounts nothing at or inside a hidden dir (protected entries a walk found there)', () => {
    const list = args({
      paths: { cwd: '/tmp', read: [], write: [] },
      protect: { existing: [`${root}/srv/.git`], placeholders: [], pins: [root, `${root}/srv`] },
      hidden: [root],
    });
    const inside = mounts(list).filter((m) => (m[m.length - 1] as string).startsWith(root));
    expect(inside).toEqual([['--tmpfs', root]]);
  });

  it('adds no mask when nothing is hidden', () => {
    const list = args({ paths: { cwd: '/tmp/ws', read: [], write: [] } });
    expect(list.join(' ')).not.toContain('ptc-exec');
  });
});

describe('hostBinds', () => {
  it('lists every bind buildBwrapArgs makes, with its source and destination', () => {
    const input = {
      layout: { ...layout, rootBinds: [{ path: '/lib64', source: '/usr/lib/x86_64' }] },
      paths: { cwd: '/tmp/ws', read: ['/srv'], write: ['/data'] },
      protect: { existing: ['/tmp/ws/.git'], placeholders: ['/tmp/ws/.ptc'], pins: [] },
      runtimeRead: ['/opt/boot/child.js'],
    };
    const binds = hostBinds(input);
    const fromArgs = mounts(args({ ...input, hidden: [] }))
      .filter((m) => ['--bind', '--ro-bind', '--bind-try', '--ro-bind-try'].includes(m[0] as string))
      .map((m) => ({ source: m[1], dest: m[2] }));
    expect(new Set(binds.map((b) => JSON.stringify(b)))).toEqual(new Set(fromArgs.map((b) => JSON.stringify(b))));
    expect(binds).toContainEqual({ source: '/usr/lib/x86_64', dest: '/lib64' });
    expect(binds).toContainEqual({ source: '/tmp/ws', dest: '/tmp/ws' });
  });
});
