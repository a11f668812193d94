import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProtectedBinds, isProtectedPath } from './protected-paths.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-protected-unit-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('isProtectedPath', () => {
  it('protects .git and .ptc at any depth below a root, and the extra paths; nothing above the root', () => {
    const roots = ['/w'];
    expect(isProtectedPath('/w/.git', roots, [])).toBe(true);
    expect(isProtectedPath('/w/.git/hooks/post-checkout', roots, [])).toBe(true);
    expect(isProtectedPath('/w/a/b/.git/config', roots, [])).toBe(true);
    expect(isProtectedPath('/w/.ptc/presets/x.yml', roots, [])).toBe(true);
    expect(isProtectedPath('/w/.gitignore', roots, [])).toBe(false);
    expect(isProtectedPath('/w/.github/workflows/ci.yml', roots, [])).toBe(false);
    expect(isProtectedPath('/w', roots, [])).toBe(false);
    expect(isProtectedPath('/elsewhere/.git/config', roots, [])).toBe(false);
    expect(isProtectedPath('/w/deploy.env', roots, ['/w/deploy.env'])).toBe(true);
    expect(isProtectedPath('/w/secrets/k', roots, ['/w/secrets'])).toBe(true);
  });
});

describe('findProtectedBinds', () => {
  it('finds root entries, placeholders for missing ones, nested repositories with their parents pinned, and existing extras', () => {
    fs.mkdirSync(path.join(root, '.git'));
    fs.mkdirSync(path.join(root, 'vendor/lib/.git'), { recursive: true });
    fs.mkdirSync(path.join(root, 'node_modules/pkg/.git'), { recursive: true });
    fs.mkdirSync(path.join(root, 'wt'));
    fs.writeFileSync(path.join(root, 'wt/.git'), 'gitdir: /elsewhere\n');
    fs.symlinkSync('vendor', path.join(root, 'linked'));
    fs.writeFileSync(path.join(root, 'deploy.env'), 'x');
    const binds = findProtectedBinds([root], [path.join(root, 'deploy.env'), path.join(root, 'missing.env')]);
    expect([...binds.existing].sort()).toEqual(
      [path.join(root, '.git'), path.join(root, 'deploy.env'), path.join(root, 'vendor/lib/.git'), path.join(root, 'wt/.git')].sort(),
    );
    expect(binds.placeholders).toEqual([path.join(root, '.ptc')]);
    expect([...binds.pins].sort()).toEqual([path.join(root, 'vendor'), path.join(root, 'vendor/lib'), path.join(root, 'wt')].sort());
  });

  it('stops the nested walk at its bound', () => {
    fs.mkdirSync(path.join(root, 'a/b/c/.git'), { recursive: true });
    expect(findProtectedBinds([root], [], 2).existing).toEqual([path.join(root, '.git')].filter((p) => fs.existsSync(p)));
  });

  it('a whole root given as an extra path is bound read-only as a whole, with nothing mounted inside it', () => {
    fs.mkdirSync(path.join(root, 'vendor/.git'), { recursive: true });
    const binds = findProtectedBinds([root], [root]);
    expect(binds).toEqual({ existing: [root], placeholders: [], pins: [] });
  });

  it('a .git file protects the repository directory it names, when that lies in a root', () => {
    fs.mkdirSync(path.join(root, '.bare/hooks'), { recursive: true });
    fs.mkdirSync(path.join(root, 'main'));
    fs.writeFileSync(path.join(root, 'main/.git'), 'gitdir: ../.bare\n');
    const binds = findProtectedBinds([root], []);
    expect(binds.existing).toEqual(expect.arrayContaining([path.join(root, 'main/.git'), path.join(root, '.bare')]));
  });
});
