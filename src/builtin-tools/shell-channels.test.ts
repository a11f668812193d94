// The persistent bash's private dir lives in the host's private root (docs/security.md, "Host-private
// state"): never in the temp dir a program may reach (TMPDIR inside the workspace), and swept with its
// bash copy once its host died without cleaning up (docs/sandbox.md, "Leftovers"). Real dirs, a real
// host killed with SIGKILL, the real sweep rule.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { skipWithoutBwrap } from '../../test/helpers/bwrap.js';
import { ownerProvablyDead, ownerTag, parseOwner, privateRoot, sweepStaleState } from '../sandbox/index.js';
import { ShellChannels } from './shell-channels.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;
const channelsModule = pathToFileURL(join(root, 'src/builtin-tools/shell-channels.ts')).href;
const PATH = process.env['PATH'] ?? '/usr/bin:/bin';
const toolModule = pathToFileURL(join(root, 'src/builtin-tools/persistent-bash.ts')).href;
const sandboxModule = pathToFileURL(join(root, 'src/sandbox/index.ts')).href;
const privateDirModule = pathToFileURL(join(root, 'src/sandbox/private-dir.ts')).href;
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-shd-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A host with TMPDIR inside its workspace runs one persistent-bash command that looks for shell dirs
 * in the workspace; `pin` (the control) pins the private root there unchecked, as the old code's temp dir.
 */
function hostWithTmpInWorkspace(name: string, pin: boolean): { found: string; exitCode: number | null } {
  const workspace = join(scratch, name);
  const tmp = join(workspace, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const script = `
const { createPersistentBashTool } = await import(${JSON.stringify(toolModule)});
const { resolveWorkspacePolicy } = await import(${JSON.stringify(sandboxModule)});
if (${pin}) (await import(${JSON.stringify(privateDirModule)})).pinPrivateRootUnchecked(${JSON.stringify(join(tmp, 'ptc-root'))});
const tool = createPersistentBashTool({ policy: resolveWorkspacePolicy({ cwd: ${JSON.stringify(workspace)} }), sandbox: 'auto' });
const out = await tool.execute({ command: 'find ${workspace} -name "*shell-*" 2>/dev/null' }, { signal: new AbortController().signal, callId: 'c', deferContext() {} });
process.stdout.write(JSON.stringify({ found: out.stdout, exitCode: out.exitCode }) + '\\n');
process.exit(0);`;
  if (pin) mkdirSync(join(tmp, 'ptc-root'), { mode: 0o700 });
  const host = spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
  expect(host.status, host.stderr).toBe(0);
  return JSON.parse(host.stdout) as { found: string; exitCode: number | null };
}

describe('the persistent bash private dir', () => {
  it('is a shell dir of this host in the private root, unlistable, with an execute-only bash', () => {
    const channels = ShellChannels.create(PATH);
    try {
      expect(dirname(channels.dir)).toBe(privateRoot());
      expect(basename(channels.dir).startsWith(`shell-${ownerTag()}-`)).toBe(true);
      expect(statSync(channels.dir).mode & 0o7777).toBe(0o300);
      expect(statSync(channels.bashPath).mode & 0o7777).toBe(0o111);
    } finally {
      channels.remove();
    }
    expect(existsSync(channels.dir)).toBe(false);
  });

  it('is removed, bash copy and all, by the stale sweep once its host was SIGKILLed; a live host keeps its own', async () => {
    // A host that makes its shell dir, says where, and dies without cleaning up.
    const script = `const { ShellChannels } = await import(${JSON.stringify(channelsModule)}); const c = ShellChannels.create(${JSON.stringify(PATH)}); process.stdout.write(c.dir + '\\n'); process.kill(process.pid, 'SIGKILL');`;
    const dead = spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(dead.signal).toBe('SIGKILL');
    const leftover = dead.stdout.trim();
    expect(dirname(leftover)).toBe(privateRoot());
    expect(existsSync(join(leftover, 'bash'))).toBe(true);
    const owner = parseOwner(basename(leftover).slice('shell-'.length));
    expect(owner).toBeDefined();
    const mine = ShellChannels.create(PATH);
    try {
      await sweepStaleState(ownerProvablyDead);
      expect(existsSync(leftover)).toBe(false);
      expect(existsSync(mine.bashPath)).toBe(true);
    } finally {
      mine.remove();
    }
  });

  it.skipIf(skipWithoutBwrap)('is out of a program\'s reach with TMPDIR inside the workspace (control: a root pinned there is found)', () => {
    const fixed = hostWithTmpInWorkspace('fixed', false);
    expect(fixed.found).toBe('');
    expect(fixed.exitCode).toBe(0);
    const control = hostWithTmpInWorkspace('control', true);
    expect(control.found).toMatch(/\/tmp\/ptc-root\/shell-[^/\n]+\n/);
  });
});
