import { chmodSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { excludeWritableRoots, makePrivateDir, privateRoot } from './private-dir.js';
import { ownerTag } from './owner.js';

const uid = process.getuid?.() ?? -1;
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-private-dir-')));
const savedTmp = process.env['TMPDIR'];
afterAll(() => {
  if (savedTmp === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

function checks(dir: string): { dir: boolean; mode: number; uid: number } {
  const stat = lstatSync(dir);
  return { dir: stat.isDirectory(), mode: stat.mode & 0o7777, uid: stat.uid };
}

// One process-wide root, so the cases build on each other in order.
describe('the private root', () => {
  it('is <TMPDIR>/ptc-<uid>, a directory of this user with mode 0700', () => {
    const base = join(scratch, 'a');
    mkdirSync(base);
    process.env['TMPDIR'] = base;
    expect(privateRoot()).toBe(join(base, `ptc-${uid}`));
    expect(checks(privateRoot())).toEqual({ dir: true, mode: 0o700, uid });
    const made = makePrivateDir('run');
    expect(dirname(made)).toBe(privateRoot());
    expect(made.slice(privateRoot().length + 1).startsWith(`run-${ownerTag()}-`)).toBe(true);
  });

  it('is checked on every use: a loosened mode is refused and a fresh root made, never the old one again', () => {
    const before = privateRoot();
    chmodSync(before, 0o755);
    const after = privateRoot();
    expect(after).not.toBe(before);
    expect(dirname(after)).toBe(dirname(before));
    expect(checks(after)).toEqual({ dir: true, mode: 0o700, uid });
    chmodSync(before, 0o700);
    expect(privateRoot()).toBe(after);
  });

  it('never uses a squatted path: a symlink or a dir with a loose mode gets a fresh dir next to it', () => {
    const base = join(scratch, 'b');
    mkdirSync(base);
    const target = join(scratch, 'target');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(base, `ptc-${uid}`));
    process.env['TMPDIR'] = base;
    excludeWritableRoots([join(scratch, 'a')]); // Gives up the current root, so the choice is made again.
    const chosen = privateRoot();
    expect(chosen).not.toBe(join(base, `ptc-${uid}`));
    expect(dirname(chosen)).toBe(base);
    expect(checks(chosen)).toEqual({ dir: true, mode: 0o700, uid });

    const loose = join(scratch, 'c');
    mkdirSync(join(loose, `ptc-${uid}`), { recursive: true, mode: 0o777 });
    chmodSync(join(loose, `ptc-${uid}`), 0o777);
    process.env['TMPDIR'] = loose;
    excludeWritableRoots([base]);
    const next = privateRoot();
    expect(dirname(next)).toBe(loose);
    expect(next).not.toBe(join(loose, `ptc-${uid}`));
  });

  it('moves out of a TMPDIR inside a writable root, and says so once on stderr', () => {
    const workspace = join(scratch, 'workspace');
    mkdirSync(join(workspace, 'tmp'), { recursive: true });
    process.env['TMPDIR'] = join(workspace, 'tmp');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      excludeWritableRoots([workspace, join(scratch, 'c')]);
      const root = privateRoot();
      expect(root.startsWith(`${workspace}/`)).toBe(false);
      expect(checks(root)).toEqual({ dir: true, mode: 0o700, uid });
      const said = stderr.mock.calls.map((call) => String(call[0])).join('');
      expect(said).toContain(`${join(workspace, 'tmp', `ptc-${uid}`)} lies inside the writable path ${workspace}`);
      privateRoot();
      expect(stderr.mock.calls.length).toBe(1);
    } finally {
      stderr.mockRestore();
    }
  });

  it('refuses with CONFIG when every candidate lies inside a writable root', () => {
    expect.assertions(2);
    excludeWritableRoots(['/']);
    try {
      privateRoot();
    } catch (error) {
      expect((error as { code?: string }).code).toBe('CONFIG');
      expect((error as Error).message).toContain('Set TMPDIR to a directory outside the workspace');
    }
  });
});
