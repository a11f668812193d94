// The host-only dirs (docs/security.md, "Host-only directories"): which masks a bwrap launch gets,
// which launches are refused, and the same through planLaunch for bwrap (probe forced: the plan is
// only built, never run) and node-permission. The real root is made by the plan-level tests, as
// any launch covering /tmp makes it.

import { chmodSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, describe, expect, it } from 'vitest';

import { execServerRoot } from './host-only.js';
import { hostOnlyMasks, refuseHostOnlyAllowed } from './host-only-mounts.js';
import { defaultSandboxEnv, overrideSandboxProbe, planLaunch, type LaunchRequest, type SandboxPolicy } from './index.js';

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-host-only-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => overrideSandboxProbe(undefined));

const uid = process.getuid?.() ?? 0;
const same = (path: string) => ({ source: path, dest: path });
let n = 0;
/** A fresh host-only dir (not made) under a fresh parent in the scratch dir. */
function fresh(): { parent: string; dir: string } {
  const parent = join(scratch, `p${++n}`);
  mkdirSync(parent);
  return { parent, dir: join(parent, 'ptc-exec') };
}

describe('hostOnlyMasks', () => {
  it('makes a covered dir that is missing (mode 0700) and masks it where the bind shows it', () => {
    const { parent, dir } = fresh();
    expect(hostOnlyMasks([same('/usr'), same(parent)], [], [dir])).toEqual([dir]);
    const stat = statSync(dir);
    expect(stat.isDirectory()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o700);
  });

  it('masks at the destination of a bind whose source differs, and once per destination', () => {
    const { parent, dir } = fresh();
    expect(hostOnlyMasks([{ source: parent, dest: '/shown' }, same(parent), same(scratch)], [], [dir]).sort()).toEqual(['/shown/ptc-exec', dir].sort());
  });

  it('leaves an existing dir as it is, whatever its mode', () => {
    const { parent, dir } = fresh();
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    expect(hostOnlyMasks([same(parent)], [], [dir])).toEqual([dir]);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });

  it('neither makes nor masks a dir that no bind contains', () => {
    const { parent, dir } = fresh();
    expect(hostOnlyMasks([same('/usr'), same(join(parent, 'sibling'))], [], [dir])).toEqual([]);
    expect(() => lstatSync(dir)).toThrow();
  });

  it('refuses a bound path or a requested path that is, or lies inside, the dir (CONFIG, naming the path)', () => {
    const { dir } = fresh();
    mkdirSync(join(dir, 'srv'), { recursive: true });
    for (const binds of [[same(dir)], [same(join(dir, 'srv'))]]) {
      expect(() => hostOnlyMasks(binds, [], [dir])).toThrow(expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining(binds[0]!.source) }));
    }
    // As the policy gave it, even when missing (it would be skipped, never bound).
    const missing = join(dir, 'not-there');
    expect(() => hostOnlyMasks([], [{ path: missing, what: 'read path' }], [dir])).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringMatching(/read path .*not-there lies inside .*Allow a path outside it/) }),
    );
  });

  it("refuses when this user's own entry there is not a directory (a symlink, a file)", () => {
    const { parent, dir } = fresh();
    symlinkSync(scratch, dir);
    expect(() => hostOnlyMasks([same(parent)], [], [dir])).toThrow(expect.objectContaining({ code: 'CONFIG', message: expect.stringContaining('not a directory') }));
    rmSync(dir);
    writeFileSync(dir, '');
    expect(() => hostOnlyMasks([same(parent)], [], [dir])).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });

  it.runIf(uid === 0)("takes another user's non-directory as nothing to hide (the exec server never uses it)", () => {
    const { parent, dir } = fresh();
    symlinkSync('/etc', dir);
    lchownSync(dir, 12345, 12345);
    expect(hostOnlyMasks([same(parent)], [], [dir])).toEqual([]);
    // Not followed: a path under the link's target is not refused.
    expect(hostOnlyMasks([same(parent), same('/etc/passwd')], [], [dir])).toEqual([]);
  });
});

describe('refuseHostOnlyAllowed', () => {
  it('refuses an allowed path that contains, is or lies inside the dir, made or not', () => {
    const { parent, dir } = fresh();
    for (const path of [parent, dir, join(dir, 'x')]) {
      expect(() => refuseHostOnlyAllowed([{ path, what: 'allowed for reading' }], [], [dir])).toThrow(
        expect.objectContaining({ code: 'CONFIG', message: expect.stringMatching(/node-permission.*--sandbox required.*--allow-read/) }),
      );
    }
    expect(() => refuseHostOnlyAllowed([{ path: join(parent, 'sibling'), what: 'allowed for writing' }, { path: '/usr', what: 'x' }], [], [dir])).not.toThrow();
    expect(() => lstatSync(dir)).toThrow();
  });
});

describe('planLaunch and the exec servers\' root', () => {
  const root = execServerRoot();
  const ws = join(scratch, 'ws');
  mkdirSync(ws, { recursive: true });
  const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({ cwd: ws, read: [], write: [], network: false, processes: true, env: defaultSandboxEnv(ws), ...over });
  const request = (over: Partial<SandboxPolicy> = {}, kind: LaunchRequest['kind'] = 'exec'): LaunchRequest => ({
    kind,
    command: kind === 'node' ? process.execPath : '/bin/true',
    args: kind === 'node' ? ['-e', '0'] : [],
    policy: policy(over),
    mode: 'auto',
    firstFreeFd: 3,
  });
  const bwrapPlan = async (over: Partial<SandboxPolicy>) => {
    overrideSandboxProbe({ bwrapPath: '/usr/bin/bwrap', seccomp: false });
    const plan = await planLaunch(request(over));
    plan.release();
    return [...plan.args];
  };
  const maskAt = (args: string[]): number => args.findIndex((a, i) => a === '--tmpfs' && args[i + 1] === root && args[i + 2] === '--remount-ro' && args[i + 3] === root);
  const bindAt = (args: string[], option: string, path: string): number => args.findIndex((a, i) => a === option && args[i + 1] === path && args[i + 2] === path);

  it('bwrap: --allow-read /tmp gets the mask after the bind of /tmp, and the root exists', async () => {
    const args = await bwrapPlan({ read: ['/tmp'] });
    expect(bindAt(args, '--ro-bind', '/tmp')).toBeGreaterThan(-1);
    expect(maskAt(args)).toBeGreaterThan(bindAt(args, '--ro-bind', '/tmp'));
    expect(lstatSync(root).isDirectory()).toBe(true);
  });

  it('bwrap: a workspace of /tmp gets the mask after its writable bind', async () => {
    const args = await bwrapPlan({ cwd: '/tmp', env: defaultSandboxEnv('/tmp') });
    expect(maskAt(args)).toBeGreaterThan(bindAt(args, '--bind', '/tmp'));
    expect(bindAt(args, '--bind', '/tmp')).toBeGreaterThan(-1);
  });

  it('bwrap: no mask when nothing bound contains the root', async () => {
    const args = await bwrapPlan({ read: ['/usr/share'] });
    expect(maskAt(args)).toBe(-1);
    expect(args.join(' ')).not.toContain(root);
  });

  it('bwrap: a read, write or workspace path inside the root (or the root itself) is refused with CONFIG', async () => {
    const inside = join(root, `t-${process.pid}`);
    mkdirSync(inside, { recursive: true, mode: 0o700 });
    try {
      for (const over of [{ read: [inside] }, { write: [inside] }, { read: [root] }, { cwd: inside }]) {
        await expect(bwrapPlan(over)).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringContaining("ptc's host-only directory") });
      }
    } finally {
      rmSync(inside, { recursive: true, force: true });
    }
  });

  it('node-permission: a workspace or allowed path containing, equal to or inside the root is refused; others are not', async () => {
    overrideSandboxProbe({ seccomp: false });
    for (const over of [{ read: ['/tmp'] }, { write: ['/tmp'] }, { cwd: '/tmp' }, { read: [root] }, { read: [join(root, 'missing')] }]) {
      await expect(planLaunch(request(over, 'node'))).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringContaining(root) });
    }
    const plan = await planLaunch(request({ read: ['/usr/share'] }, 'node'));
    expect(plan.backend).toBe('node-permission');
  });

  it('off: nothing is refused or hidden', async () => {
    const plan = await planLaunch({ ...request({ read: ['/tmp'] }), mode: 'off' });
    expect(plan.backend).toBe('none');
  });
});
