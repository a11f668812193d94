// Plan mode cannot write (docs/plan-mode.md, docs/security.md "Plan mode"): a run_code program, a
// one-shot bash command and the persistent bash each try every way into the workspace they can
// (create, overwrite, append, truncate, rename, delete, chmod, utimes, mkdir, rmdir, a new symlink,
// writing through an existing symlink, through /proc/self/cwd and /proc/self/root, through a symlink
// in /tmp, a hard link, a child process). In plan mode nothing in the workspace changes; the control
// (the same attempts outside plan mode) changes it. Under bwrap, and with bwrap hidden (the program
// falls back to Node's permission model; a shell has no fallback and refuses). Real harness, real
// sandbox, real files.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type HarnessOptions } from '../../src/harness.js';
import { installPlanMode } from '../../src/plan-mode/plan-mode.js';
import { overrideSandboxProbe } from '../../src/sandbox/index.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

let workspace: string;
const harnesses: Harness[] = [];

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-plan-ws-')));
  fs.writeFileSync(path.join(workspace, 'keep.txt'), 'original\n');
  fs.writeFileSync(path.join(workspace, 'victim.txt'), 'victim\n');
  fs.mkdirSync(path.join(workspace, 'empty'));
  fs.mkdirSync(path.join(workspace, 'sub'));
  fs.writeFileSync(path.join(workspace, 'sub', 'deep.txt'), 'deep\n');
  fs.symlinkSync('keep.txt', path.join(workspace, 'link.txt'));
  fs.chmodSync(path.join(workspace, 'victim.txt'), 0o644);
});
afterEach(async () => {
  overrideSandboxProbe(undefined);
  for (const h of harnesses.splice(0)) await h.dispose();
  fs.rmSync(workspace, { recursive: true, force: true });
});

async function open(planning: boolean, options: HarnessOptions = {}): Promise<Harness> {
  const harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto', runtimePool: { size: 1, refill: false }, ...options });
  harnesses.push(harness);
  installPlanMode(harness.ctx, { active: planning });
  return harness;
}

/** Every entry of the workspace: kind, mode, size, mtime, and the content or link target. */
function snapshot(dir: string = workspace): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of fs.readdirSync(at).sort()) {
      const full = path.join(at, name);
      const st = fs.lstatSync(full);
      const rel = path.relative(dir, full);
      const what = st.isSymbolicLink() ? `link:${fs.readlinkSync(full)}` : st.isDirectory() ? 'dir' : `file:${fs.readFileSync(full, 'utf8')}`;
      out[rel] = `${what} mode=${(st.mode & 0o7777).toString(8)} mtime=${st.mtimeMs}`;
      if (st.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out;
}

/** The attempts as a Node program; returns { name: 'ok' | error code } for each. */
function programAttacks(ws: string): string {
  return `
const fs = await import('node:fs');
const { execFileSync } = await import('node:child_process');
const ws = ${JSON.stringify(ws)};
const out = {};
const attempt = (name, fn) => { try { fn(); out[name] = 'ok'; } catch (e) { out[name] = e.code ?? String(e); } };
attempt('create', () => fs.writeFileSync('new.txt', 'n'));
attempt('overwrite', () => fs.writeFileSync('keep.txt', 'changed'));
attempt('append', () => fs.appendFileSync(ws + '/victim.txt', 'more'));
attempt('truncate', () => fs.truncateSync('victim.txt', 0));
attempt('rename', () => fs.renameSync('keep.txt', 'moved.txt'));
attempt('delete', () => fs.unlinkSync('victim.txt'));
attempt('chmod', () => fs.chmodSync('victim.txt', 0o777));
attempt('utimes', () => fs.utimesSync('victim.txt', 1, 1));
attempt('mkdir', () => fs.mkdirSync('made'));
attempt('rmdir', () => fs.rmdirSync('empty'));
attempt('rmrf', () => fs.rmSync('sub', { recursive: true }));
attempt('symlink', () => fs.symlinkSync('/etc/passwd', 'evil-link'));
attempt('hardlink', () => fs.linkSync('keep.txt', 'hard.txt'));
attempt('viaLink', () => fs.writeFileSync('link.txt', 'through the link'));
attempt('procCwd', () => fs.writeFileSync('/proc/self/cwd/proc.txt', 'p'));
attempt('procRoot', () => fs.writeFileSync('/proc/self/root' + ws + '/root.txt', 'r'));
attempt('tmpLink', () => { const l = (process.env.TMPDIR ?? '/tmp') + '/to-ws-' + process.pid; fs.symlinkSync(ws + '/keep.txt', l); fs.writeFileSync(l, 'via tmp'); });
attempt('child', () => execFileSync('/bin/sh', ['-c', 'echo c > child.txt']));
return out;`;
}

/** The attempts as one shell script; prints `name:ok` or `name:fail` for each. */
function shellAttacks(ws: string): string {
  const q = (s: string) => `'${s}'`;
  const attempts: [string, string][] = [
    ['create', 'echo n > new.txt'],
    ['overwrite', 'echo changed > keep.txt'],
    ['append', `echo more >> ${q(ws)}/victim.txt`],
    ['truncate', 'truncate -s 0 victim.txt'],
    ['rename', 'mv keep.txt moved.txt'],
    ['delete', 'rm -f victim.txt && test ! -e victim.txt'],
    ['chmod', 'chmod 777 victim.txt'],
    ['utimes', 'touch -d 2000-01-01 victim.txt'],
    ['mkdir', 'mkdir made'],
    ['rmdir', 'rmdir empty'],
    ['rmrf', 'rm -rf sub && test ! -e sub'],
    ['symlink', 'ln -s /etc/passwd evil-link'],
    ['hardlink', 'ln keep.txt hard.txt'],
    ['viaLink', 'echo through > link.txt'],
    ['procCwd', 'echo p > /proc/self/cwd/proc.txt'],
    ['procRoot', `echo r > /proc/self/root${ws}/root.txt`],
    ['tmpLink', `ln -sf ${q(ws)}/keep.txt /tmp/to-ws-$$ && echo via > /tmp/to-ws-$$`],
    ['cdBack', `cd /tmp && cd ${q(ws)} && echo x > cd.txt`],
    ['subshell', `(cd sub && echo s > sub.txt)`],
    ['python', `command -v python3 >/dev/null && python3 -c "open('py.txt','w').write('p')"`],
  ];
  return attempts.map(([name, command]) => `if (${command}) 2>/dev/null; then echo ${name}:ok; else echo ${name}:fail; fi`).join('\n');
}

function shellOutcome(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.trim().split('\n').filter((l) => l.includes(':')).map((l) => l.split(':') as [string, string]));
}

async function runProgram(harness: Harness, code: string) {
  const scope = await harness.ptcScope();
  return harness.tools.execute('run_code', { code, description: 'plan-mode attack' }, { scope, id: 'p1' });
}

function valueOf(result: { value?: unknown }): Record<string, string> {
  return (result.value as { result: Record<string, string> }).result;
}

describe.skipIf(skipWithoutBwrap)('plan mode under bwrap: the workspace is mounted read-only', () => {
  it('a program changes nothing in the workspace, by any route; control: outside plan mode the same program does', async () => {
    const before = snapshot();
    const held = await runProgram(await open(true), programAttacks(workspace));
    expect(held.isError, held.content).toBe(false);
    const attempts = valueOf(held);
    expect(Object.keys(attempts)).toHaveLength(18);
    for (const [name, outcome] of Object.entries(attempts)) expect(outcome, name).not.toBe('ok');
    expect(snapshot()).toEqual(before);

    const free = await runProgram(await open(false), programAttacks(workspace));
    const done = valueOf(free);
    for (const name of ['create', 'overwrite', 'rename', 'mkdir', 'symlink', 'child']) expect(done[name], name).toBe('ok');
    expect(snapshot()).not.toEqual(before);
    expect(fs.existsSync(path.join(workspace, 'new.txt'))).toBe(true);
  });

  it('a bash command changes nothing in the workspace; control: outside plan mode it does', async () => {
    const before = snapshot();
    const held = await (await open(true)).tools.execute('bash', { command: shellAttacks(workspace) }, { id: 'b1' });
    expect(held.isError, held.content).toBe(false);
    const attempts = shellOutcome((held.value as { stdout: string }).stdout);
    expect(Object.keys(attempts)).toHaveLength(20);
    for (const [name, outcome] of Object.entries(attempts)) {
      // The control shows python3 may be missing; that is a fail either way.
      expect(outcome, name).toBe('fail');
    }
    expect(snapshot()).toEqual(before);

    const free = await (await open(false)).tools.execute('bash', { command: shellAttacks(workspace) }, { id: 'b2' });
    const done = shellOutcome((free.value as { stdout: string }).stdout);
    for (const name of ['create', 'overwrite', 'rename', 'mkdir', 'rmdir', 'symlink', 'procCwd']) expect(done[name], name).toBe('ok');
    expect(fs.readFileSync(path.join(workspace, 'new.txt'), 'utf8')).toBe('n\n');
  });

  it('a program that calls tools.bash gets the same read-only shell', async () => {
    const before = snapshot();
    const code = `const r = await tools.bash({ command: 'echo x > from-program.txt; echo rc=$?' }); return r;`;
    const held = await runProgram(await open(true), code);
    expect(held.isError, held.content).toBe(false);
    expect(held.content).toMatch(/Read-only file system/);
    expect(snapshot()).toEqual(before);
  });

  it('the persistent bash: a shell started outside plan mode is restarted read-only when plan mode turns on', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'minimal', sandbox: 'auto' });
    harnesses.push(harness);
    const { service } = installPlanMode(harness.ctx, { active: false });
    // Control first: the shell writes, and keeps a background writer that would write later.
    const free = await harness.tools.execute('bash', { command: 'echo free > free.txt && export MARK=1 && echo ok' }, { id: 's1' });
    expect(free.isError, free.content).toBe(false);
    expect(fs.readFileSync(path.join(workspace, 'free.txt'), 'utf8')).toBe('free\n');
    service.set(true, 'user');
    const before = snapshot();
    const held = await harness.tools.execute('bash', { command: shellAttacks(workspace) }, { id: 's2' });
    expect(held.isError, held.content).toBe(false);
    expect((held.value as { shell: string }).shell).toBe('restarted');
    const attempts = shellOutcome((held.value as { stdout: string }).stdout);
    expect(Object.keys(attempts)).toHaveLength(20);
    for (const [name, outcome] of Object.entries(attempts)) expect(outcome, name).toBe('fail');
    expect(snapshot()).toEqual(before);
    // And back: plan mode off restarts it writable.
    service.set(false, 'approval');
    const again = await harness.tools.execute('bash', { command: 'echo again > again.txt' }, { id: 's3' });
    expect((again.value as { shell: string }).shell).toBe('restarted');
    expect(fs.readFileSync(path.join(workspace, 'again.txt'), 'utf8')).toBe('again\n');
  });
});

describe('plan mode with bwrap hidden', () => {
  beforeEach(() => overrideSandboxProbe({ seccomp: false, detail: 'hidden by a test' }));

  it('a program falls back to Node permissions and changes nothing; control: outside plan mode it does', async () => {
    const before = snapshot();
    const held = await runProgram(await open(true), programAttacks(workspace));
    expect(held.isError, held.content).toBe(false);
    for (const [name, outcome] of Object.entries(valueOf(held))) expect(outcome, name).not.toBe('ok');
    expect(snapshot()).toEqual(before);

    const free = await runProgram(await open(false), programAttacks(workspace));
    const done = valueOf(free);
    for (const name of ['create', 'overwrite', 'rename', 'mkdir']) expect(done[name], name).toBe('ok');
    expect(fs.existsSync(path.join(workspace, 'new.txt'))).toBe(true);
  });

  it('bash refuses to run (SANDBOX_UNAVAILABLE, naming the cause and the ways out); control: outside plan mode it runs', async () => {
    const before = snapshot();
    const held = await (await open(true)).tools.execute('bash', { command: 'echo x > new.txt' }, { id: 'b1' });
    expect(held).toMatchObject({ isError: true, error: { code: 'SANDBOX_UNAVAILABLE' } });
    expect(held.content).toMatch(/plan mode keeps the workspace read-only/i);
    expect(held.content).toMatch(/bubblewrap/);
    expect(held.content).toMatch(/leave plan mode/);
    expect(snapshot()).toEqual(before);
    const free = await (await open(false)).tools.execute('bash', { command: 'echo x > new.txt' }, { id: 'b2' });
    expect(free.isError, free.content).toBe(false);
    expect(fs.existsSync(path.join(workspace, 'new.txt'))).toBe(true);
  });

  it('the persistent bash refuses too, and leaves no shell running', async () => {
    const harness = await createHarness({ cwd: workspace, preset: 'minimal', sandbox: 'auto' });
    harnesses.push(harness);
    installPlanMode(harness.ctx, { active: true });
    const before = snapshot();
    const held = await harness.tools.execute('bash', { command: 'echo x > new.txt' }, { id: 's1' });
    expect(held).toMatchObject({ isError: true, error: { code: 'SANDBOX_UNAVAILABLE' } });
    expect(snapshot()).toEqual(before);
  });

  it('a program with the sandbox off does not run at all', async () => {
    const before = snapshot();
    const held = await runProgram(await open(true, { sandbox: 'off' }), "(await import('node:fs')).writeFileSync('new.txt', 'n'); return 'ran';");
    expect(held).toMatchObject({ isError: true, error: { code: 'SANDBOX_UNAVAILABLE' } });
    expect(snapshot()).toEqual(before);
  });
});
