// Protected paths (docs/sandbox.md, "Protected paths"; docs/security.md): `.git`, `.ptc` and the
// paths given with `protect` are read-only for programs, their child processes and the bash tool,
// and cannot be created where they are missing; the file tools write them only with a person's yes
// for that exact call. Real bwrap, real git, real temp dirs. Each attack has a control: the same
// program with the sandbox off gets through, so the detector is not blind.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installApprovals, type ApprovalAnswer, type ApprovalRequest } from '../../src/approvals/approvals.js';
import { createHarness, type Harness, type HarnessOptions } from '../../src/harness.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

let root: string;
let workspace: string;
const harnesses: Harness[] = [];

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-protect-')));
  workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.dispose();
  fs.rmSync(root, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function makeRepo(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  fs.writeFileSync(path.join(dir, 'README'), 'hi\n');
  git(dir, 'add', 'README');
  git(dir, 'commit', '-qm', 'init');
}

async function open(options: HarnessOptions = {}): Promise<Harness> {
  const harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'required', runtimePool: { size: 1, refill: false }, ...options });
  harnesses.push(harness);
  return harness;
}

/** Runs `code` as a program; returns its rendered content (logs and result, or the error). */
async function program(harness: Harness, code: string): Promise<string> {
  const scope = await harness.ptcScope();
  const result = await harness.tools.execute('run_code', { code, description: 'attack' }, { scope });
  return result.content;
}

/** A program that tries every write it is given with node:fs and with a shell child, and reports each. */
function attempts(steps: Record<string, string>): string {
  return `
const fs = await import('node:fs');
const { execFileSync } = await import('node:child_process');
const out = {};
for (const [name, script] of Object.entries(${JSON.stringify(steps)})) {
  try { execFileSync('/bin/sh', ['-c', script], { stdio: 'pipe' }); out[name] = 'ok'; }
  catch (e) { out[name] = 'failed: ' + String(e.stderr ?? e.message).trim().split('\\n').pop(); }
}
return out;`;
}

// Git runs hooks in the top of the work tree.
const HOOK = '#!/bin/sh\necho pwned > pwned\n';

describe.skipIf(skipWithoutBwrap)('protected paths under bwrap', () => {
  it('a program cannot plant a git hook or core.fsmonitor in the workspace repository (fs and a child process)', async () => {
    makeRepo(workspace);
    const harness = await open();
    const content = await program(
      harness,
      `const fs = await import('node:fs');
const out = {};
try { fs.writeFileSync('.git/hooks/post-checkout', ${JSON.stringify(HOOK)}, { mode: 0o755 }); out.hook = 'ok'; } catch (e) { out.hook = e.code; }
try { fs.appendFileSync('.git/config', '[core]\\n\\tfsmonitor = touch pwned\\n'); out.config = 'ok'; } catch (e) { out.config = e.code; }
try { fs.renameSync('.git', 'git-aside'); out.rename = 'ok'; } catch (e) { out.rename = e.code; }
const { execFileSync } = await import('node:child_process');
try { execFileSync('/bin/sh', ['-c', 'echo x > .git/hooks/pre-commit'], { stdio: 'pipe' }); out.child = 'ok'; } catch { out.child = 'failed'; }
return out;`,
    );
    expect(content).toContain('"hook": "EROFS"');
    expect(content).toContain('"config": "EROFS"');
    expect(content).toContain('"rename": "EBUSY"');
    expect(content).toContain('"child": "failed"');
    expect(fs.existsSync(path.join(workspace, '.git/hooks/post-checkout'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(workspace, '.git/config'), 'utf8')).not.toContain('fsmonitor');
    // The rest of the workspace stays writable.
    expect(await program(harness, "(await import('node:fs')).writeFileSync('ok.txt', 'fine'); return 'wrote';")).toContain('wrote');
    expect(fs.readFileSync(path.join(workspace, 'ok.txt'), 'utf8')).toBe('fine');
  });

  it('control: with the sandbox off the same hook is planted, and git runs it', async () => {
    makeRepo(workspace);
    const harness = await open({ sandbox: 'off' });
    await program(harness, `(await import('node:fs')).writeFileSync('.git/hooks/post-checkout', ${JSON.stringify(HOOK)}, { mode: 0o755 });`);
    expect(fs.existsSync(path.join(workspace, '.git/hooks/post-checkout'))).toBe(true);
    git(workspace, 'checkout', '-q', '-b', 'other');
    expect(fs.existsSync(path.join(workspace, 'pwned'))).toBe(true);
  });

  it('a program cannot create a missing .git or .ptc (git init, .git/config, mkdir .ptc/presets); git does not misread what is left', async () => {
    const harness = await open();
    const steps = {
      gitInit: 'git init -q .',
      gitConfig: 'mkdir -p .git && printf "[core]\\n\\tfsmonitor = touch pwned\\n" > .git/config',
      presets: 'mkdir -p .ptc/presets && echo "name: evil" > .ptc/presets/evil.yml',
      renameAside: 'mv .git git-aside',
    };
    const content = await program(harness, attempts(steps));
    for (const name of Object.keys(steps)) expect(content).toMatch(new RegExp(`"${name}": "failed`));
    // What stays on the host: empty mount point directories, which git does not take for a repository.
    expect(fs.readdirSync(path.join(workspace, '.git'))).toEqual([]);
    expect(fs.readdirSync(path.join(workspace, '.ptc'))).toEqual([]);
    expect(() => git(workspace, 'rev-parse', '--git-dir')).toThrow(/not a git repository/);
    // ...and the user can still make it one.
    git(workspace, 'init', '-q');
    expect(git(workspace, 'rev-parse', '--show-toplevel')).toBe(workspace);
  });

  it('control: with the sandbox off the program creates the repository and the presets', async () => {
    const harness = await open({ sandbox: 'off' });
    await program(harness, attempts({ gitInit: 'git init -q .', presets: 'mkdir -p .ptc/presets && echo "name: evil" > .ptc/presets/evil.yml' }));
    expect(git(workspace, 'rev-parse', '--show-toplevel')).toBe(workspace);
    expect(fs.existsSync(path.join(workspace, '.ptc/presets/evil.yml'))).toBe(true);
  });

  it('a workspace inside a repository: a program cannot put a .git of its own in the way of the parent repository', async () => {
    makeRepo(root);
    const harness = await open();
    const content = await program(harness, attempts({ hijack: 'git init -q . && git config core.fsmonitor "touch pwned"' }));
    expect(content).toMatch(/"hijack": "failed/);
    // Discovery from the workspace still finds the parent, and the parent's status is clean of it.
    expect(git(workspace, 'rev-parse', '--show-toplevel')).toBe(root);
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('control: with the sandbox off the program hijacks discovery in the workspace', async () => {
    makeRepo(root);
    const harness = await open({ sandbox: 'off' });
    await program(harness, attempts({ hijack: 'git init -q .' }));
    expect(git(workspace, 'rev-parse', '--show-toplevel')).toBe(workspace);
  });

  it('a nested repository: its .git is read-only, and it cannot be moved aside for a .git of the program', async () => {
    makeRepo(path.join(workspace, 'vendor', 'lib'));
    const harness = await open();
    const steps = {
      hook: 'echo x > vendor/lib/.git/hooks/post-checkout',
      moveParent: 'mv vendor vendor-aside',
      moveRepo: 'mv vendor/lib vendor/lib-aside',
      swap: 'mv vendor/lib/.git vendor/lib/git-aside',
    };
    const content = await program(harness, attempts(steps));
    for (const name of Object.keys(steps)) expect(content).toMatch(new RegExp(`"${name}": "failed`));
    expect(fs.existsSync(path.join(workspace, 'vendor/lib/.git/hooks/post-checkout'))).toBe(false);
    expect(git(path.join(workspace, 'vendor/lib'), 'log', '--format=%s')).toBe('init');
    // The files of the nested repository stay writable.
    expect(await program(harness, "(await import('node:fs')).writeFileSync('vendor/lib/README', 'changed'); return 'wrote';")).toContain('wrote');
  });

  it('control: with the sandbox off the nested repository is moved aside and replaced', async () => {
    makeRepo(path.join(workspace, 'vendor', 'lib'));
    const harness = await open({ sandbox: 'off' });
    const content = await program(harness, attempts({ moveParent: 'mv vendor vendor-aside && mkdir -p vendor/lib/.git/hooks' }));
    expect(content).toMatch(/"moveParent": "ok"/);
    expect(fs.existsSync(path.join(workspace, 'vendor-aside/lib/.git'))).toBe(true);
  });

  it('a path given with protect is read-only for programs; without it the same write lands', async () => {
    fs.writeFileSync(path.join(workspace, 'deploy.env'), 'TOKEN=1\n');
    const code = attempts({ overwrite: 'echo TOKEN=evil > deploy.env', remove: 'rm -f deploy.env' });
    const guarded = await open({ protect: ['deploy.env'] });
    const content = await program(guarded, code);
    expect(content).toMatch(/"overwrite": "failed/);
    expect(content).toMatch(/"remove": "failed/);
    expect(fs.readFileSync(path.join(workspace, 'deploy.env'), 'utf8')).toBe('TOKEN=1\n');
    // Control: the same program without the protect entry.
    const open2 = await open();
    await program(open2, attempts({ overwrite: 'echo TOKEN=evil > deploy.env' }));
    expect(fs.readFileSync(path.join(workspace, 'deploy.env'), 'utf8')).toBe('TOKEN=evil\n');
  });

  it('the bash tool obeys the same binds (control: sandbox off)', async () => {
    makeRepo(workspace);
    const harness = await open();
    const result = await harness.tools.execute('bash', { command: 'echo x > .git/hooks/pre-push; mkdir .ptc/presets; echo done' });
    expect(result.content).toMatch(/Read-only file system/);
    expect(fs.existsSync(path.join(workspace, '.git/hooks/pre-push'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, '.ptc/presets'))).toBe(false);
    const off = await open({ sandbox: 'off' });
    await off.tools.execute('bash', { command: 'echo x > .git/hooks/pre-push' });
    expect(fs.existsSync(path.join(workspace, '.git/hooks/pre-push'))).toBe(true);
  });
});

describe('protected paths in the file tools', () => {
  function person(answers: ApprovalAnswer[]) {
    const asked: ApprovalRequest[] = [];
    const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
      asked.push(request);
      return answers.shift() ?? { decision: 'deny', reason: 'no more answers scripted' };
    };
    return { asked, approver };
  }

  it('with no one to ask, write, edit and str_replace_editor refuse .git, .ptc (at any depth, through a link) and protect entries, saying why', async () => {
    makeRepo(workspace);
    fs.mkdirSync(path.join(workspace, 'sub'));
    fs.symlinkSync('../.git', path.join(workspace, 'sub', 'g'));
    fs.writeFileSync(path.join(workspace, 'deploy.env'), 'TOKEN=1\n');
    const harness = await open({ sandbox: 'off', protect: ['deploy.env'] });
    const calls: [string, Record<string, unknown>][] = [
      ['write', { path: '.git/hooks/post-checkout', content: HOOK }],
      ['write', { path: 'sub/g/hooks/post-checkout', content: HOOK }],
      ['write', { path: 'sub/.git/config', content: '[core]\n' }],
      ['write', { path: '.ptc/presets/evil.yml', content: 'name: evil\n' }],
      ['edit', { path: 'deploy.env', old_string: 'TOKEN=1', new_string: 'TOKEN=2' }],
    ];
    const minimal = await open({ sandbox: 'off', preset: 'minimal' });
    const editorCall: [string, Record<string, unknown>] = ['str_replace_editor', { command: 'create', path: 'vendor/.git/hooks/pre-commit', file_text: HOOK }];
    for (const [tool, args] of [...calls, editorCall]) {
      const result = await (tool === 'str_replace_editor' ? minimal : harness).tools.execute(tool, args);
      expect(result, `${tool} ${JSON.stringify(args)}`).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
      expect(result.content).toMatch(/protected path.*No one can be asked here/s);
    }
    expect(fs.existsSync(path.join(workspace, '.git/hooks/post-checkout'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, 'sub/.git'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, '.ptc'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, 'vendor'))).toBe(false);
    expect(fs.readFileSync(path.join(workspace, 'deploy.env'), 'utf8')).toBe('TOKEN=1\n');
    // Control: the same tool writes a neighbour that is not protected.
    expect(await harness.tools.execute('write', { path: '.github/x', content: 'x' })).toMatchObject({ isError: false });
  });

  it('every protected write asks on its own: allow-tool, a session allowance and --approve never do not cover it; a yes writes that call only', async () => {
    makeRepo(workspace);
    const harness = await open({ sandbox: 'off' });
    const { asked, approver } = person([{ decision: 'allow-tool' }, { decision: 'allow-tool' }, { decision: 'deny', reason: 'not the hooks' }]);
    const remove = installApprovals(harness.ctx, { policy: 'writes', approver });
    try {
      // 1: the ordinary ask of the write (allow-tool), 2: the protected ask (a yes for this call only).
      expect(await harness.tools.execute('write', { path: '.git/info/exclude', content: 'x\n' }, { id: 'w1' })).toMatchObject({ isError: false });
      expect(asked.map((r) => [r.id, r.why !== undefined])).toEqual([['w1', false], ['w1', true]]);
      // 3: write is allowed for the session now, yet the protected path asks again, and the no holds.
      const denied = await harness.tools.execute('write', { path: '.git/hooks/post-checkout', content: HOOK }, { id: 'w2' });
      expect(denied).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
      expect(denied.content).toContain('denied by the user: not the hooks');
      expect(asked.map((r) => r.id)).toEqual(['w1', 'w1', 'w2']);
    } finally {
      await remove();
    }
    expect(fs.readFileSync(path.join(workspace, '.git/info/exclude'), 'utf8')).toBe('x\n');
    expect(fs.existsSync(path.join(workspace, '.git/hooks/post-checkout'))).toBe(false);
    // Policy never with a front-end: ordinary writes do not ask, protected ones still do.
    const never = person([{ decision: 'deny' }]);
    const removeNever = installApprovals(harness.ctx, { policy: 'never', approver: never.approver });
    try {
      expect(await harness.tools.execute('write', { path: 'plain.txt', content: 'p' })).toMatchObject({ isError: false });
      expect(await harness.tools.execute('write', { path: '.git/hooks/post-checkout', content: HOOK })).toMatchObject({ isError: true });
      expect(never.asked.map((r) => r.tool)).toEqual(['write']);
    } finally {
      await removeNever();
    }
  });
});
