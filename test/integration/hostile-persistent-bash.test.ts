// Hostile commands and programs against the persistent bash's protocol (issue 26; docs/security.md,
// "Persistent bash"). A program the shell runs must not read the shell's input (a later call's
// command, the current call's nonce), forge the end marker, or write into a later call's output.
// test/fixtures/shell-thief.py tries every route: inherited descriptors, /proc/<pid>/fd reopen of
// the shell and of bwrap's init, pidfd_getfd, ptrace, /proc/<pid>/mem. Each attack has a control:
// the same attack against a shell the kernel leaves dumpable (a readable copy of bash, reachable
// only through ShellSession's test options), the same write made while its own call still runs, or
// the one-shot bash, which does not ask for the user-namespace rule.

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { skipWithoutBwrap } from '../helpers/bwrap.js';
import { waitUntil } from '../helpers/wait-until.js';
import { defaultSandboxEnv, resolveWorkspacePolicy, sandboxPolicyOf } from '../../src/sandbox/index.js';
import { createPersistentBashTool, type PersistentBashOutput, type PersistentBashTool } from '../../src/builtin-tools/persistent-bash.js';
import { ShellSession } from '../../src/builtin-tools/shell-session.js';
import { createBashTool } from '../../src/builtin-tools/bash.js';

const THIEF_SOURCE = join(import.meta.dirname, '..', 'fixtures', 'shell-thief.py');
const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', 'import ctypes']);
    return true;
  } catch {
    return false;
  }
})();
const skip = skipWithoutBwrap || !hasPython;
if (!hasPython) console.warn('hostile-persistent-bash: python3 with ctypes is missing; these tests skip.');

let ws: string;
const tools: PersistentBashTool[] = [];
const sessions: ShellSession[] = [];

beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-pbash-hostile-')));
  copyFileSync(THIEF_SOURCE, join(ws, 'thief.py'));
});

afterEach(async () => {
  await Promise.all([...tools.splice(0).map((tool) => tool.dispose()), ...sessions.splice(0).map((session) => session.dispose())]);
});

afterAll(() => {
  rmSync(ws, { recursive: true, force: true });
});

function makeTool(): PersistentBashTool {
  const tool = createPersistentBashTool({ policy: resolveWorkspacePolicy({ cwd: ws }), sandbox: 'auto' });
  tools.push(tool);
  return tool;
}

/** A session whose shell is a readable copy of bash, so the kernel leaves it dumpable (the controls). */
async function dumpableSession(): Promise<ShellSession> {
  const policy = sandboxPolicyOf(resolveWorkspacePolicy({ cwd: ws }), defaultSandboxEnv(ws));
  const session = await ShellSession.start({ policy, mode: 'auto', maxStreamBytes: 20_000, memoryLimitBytes: 4096 * 1024 * 1024 }, { readableShell: true });
  sessions.push(session);
  return session;
}

/** A shell command's result through the tool or a bare session, in the tool's shape. */
type Runner = (command: string, timeoutMs?: number) => Promise<Pick<PersistentBashOutput, 'exitCode' | 'stdout' | 'stderr' | 'timedOut'>>;

function toolRunner(tool: PersistentBashTool): Runner {
  return async (command, timeoutMs = 20_000) =>
    Promise.resolve(tool.execute({ command, timeout_ms: timeoutMs }, { signal: new AbortController().signal, callId: 'h', deferContext() {} }));
}

function sessionRunner(session: ShellSession): Runner {
  return async (command, timeoutMs = 20_000) => {
    const outcome = await session.run(command, { timeoutMs, signal: new AbortController().signal });
    return { exitCode: outcome.status ?? null, stdout: outcome.stdout.text(), stderr: outcome.stderr.text(), timedOut: outcome.timedOut };
  };
}

interface Report {
  readonly routes: Record<string, { ok: boolean; detail: string }>;
  readonly nonce?: boolean;
  readonly channel?: boolean;
}

function freshDir(name: string): string {
  const dir = join(ws, `${name}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  return dir;
}

function readReport(path: string): Report {
  return JSON.parse(readFileSync(path, 'utf8')) as Report;
}

/** The routes to the shell itself that worked. */
function shellRoutesThatWorked(report: Report): string[] {
  return Object.entries(report.routes)
    .filter(([route, result]) => result.ok && !route.endsWith('-1') && route !== 'inherited')
    .map(([route]) => route);
}

async function forgeInCall(run: Runner): Promise<{ value: Awaited<ReturnType<Runner>>; report: Report }> {
  const reportPath = join(freshDir('probe'), 'report.json');
  const value = await run(`python3 thief.py probe ${reportPath}; echo "thief exited $?"; (exit 5)`);
  return { value, report: readReport(reportPath) };
}

describe.skipIf(skip)('persistent bash against hostile programs (bwrap)', () => {
  it('a program cannot learn the nonce by any route, so it cannot forge the end marker', async () => {
    const { value, report } = await forgeInCall(toolRunner(makeTool()));
    expect(report.nonce).toBe(false);
    expect(value).toMatchObject({ exitCode: 5, stdout: 'AFTER-FORGE\nthief exited 7\n', timedOut: false });
    expect(shellRoutesThatWorked(report)).toEqual([]);
  });

  it('control: against a dumpable shell the same program reads the nonce from its memory and forges the marker', async () => {
    const { value, report } = await forgeInCall(sessionRunner(await dumpableSession()));
    expect(report.nonce).toBe(true);
    // The forged marker ended the call: the real status (5) and everything after the forgery are lost.
    expect(value).toMatchObject({ exitCode: 0, stdout: '', timedOut: false });
    expect(shellRoutesThatWorked(report).length).toBeGreaterThan(0);
  });

  async function lurkAndSend(run: Runner): Promise<{ next: Awaited<ReturnType<Runner>>; report: Report; loot: string; secret: string }> {
    const dir = freshDir('lurk');
    const secret = `SECRET-${Math.random().toString(36).slice(2)}`;
    expect((await run(`python3 thief.py lurk ${dir} >/dev/null 2>&1 &`)).exitCode).toBe(0);
    await waitUntil('the lurker to start', () => existsSync(join(dir, 'ready')));
    // The previous call is over: the lurker may now stop the shell. It reports once it holds the
    // shell's input or knows it cannot; only then is the next command sent.
    writeFileSync(join(dir, 'go'), '');
    await waitUntil('the lurker to report', () => existsSync(join(dir, 'report.json')));
    const next = await run(`echo ${secret}`, 3_000);
    writeFileSync(join(dir, 'stop'), '');
    const lootPath = join(dir, 'loot');
    return { next, report: readReport(join(dir, 'report.json')), loot: existsSync(lootPath) ? readFileSync(lootPath, 'latin1') : '', secret };
  }

  it("a background program cannot stop the shell or take its input, so it cannot read the next call's command", async () => {
    const { next, report, loot, secret } = await lurkAndSend(toolRunner(makeTool()));
    expect(next).toMatchObject({ exitCode: 0, stdout: `${secret}\n`, stderr: '', timedOut: false });
    expect(report.channel).toBe(false);
    expect(loot).toBe('');
    expect(shellRoutesThatWorked(report)).toEqual([]);
  });

  it('control: against a dumpable shell the same program stops it, takes its input and reads the next command', async () => {
    const { next, report, loot, secret } = await lurkAndSend(sessionRunner(await dumpableSession()));
    expect(report.channel).toBe(true);
    expect(loot).toContain(secret);
    expect(next.timedOut).toBe(true);
  });

  /**
   * A background subshell of the command (bash code, forked from the shell, not exec'd): once the
   * previous call is over it looks for the shell's input (a descriptor it inherited that is the
   * shell's stdin, or the shell's stdin reopened through /proc), stops the shell and copies what the
   * next call sends.
   */
  async function subshellLurk(run: Runner): Promise<{ next: Awaited<ReturnType<Runner>>; loot: string; secret: string }> {
    const dir = freshDir('sub');
    const secret = `SECRET-${Math.random().toString(36).slice(2)}`;
    const lurker =
      `{ me=$BASHPID; while [ ! -e ${dir}/go ]; do sleep 0.02; done; for i in {1..50}; do t=$(readlink /proc/$$/fd/0); ` +
      `if [[ $t == */shell-* ]]; then kill -STOP $$; touch ${dir}/armed; cat "$t" >${dir}/loot; break; fi; ` +
      `if [[ $t == socket:* ]]; then for n in 10 11 12 13 14 15; do if [[ $(readlink /proc/$me/fd/$n) == "$t" ]]; then ` +
      `kill -STOP $$; touch ${dir}/armed; cat <&$n >${dir}/loot; break 2; fi; done; fi; ` +
      `sleep 0.02; done; touch ${dir}/armed; } >/dev/null 2>&1 &`;
    expect((await run(lurker)).exitCode).toBe(0);
    writeFileSync(join(dir, 'go'), '');
    await waitUntil('the subshell to arm', () => existsSync(join(dir, 'armed')));
    const next = await run(`echo ${secret}`, 3_000);
    const lootPath = join(dir, 'loot');
    return { next, loot: existsSync(lootPath) ? readFileSync(lootPath, 'latin1') : '', secret };
  }

  it("a background subshell of a command cannot reach the shell's input either", async () => {
    const { next, loot } = await subshellLurk(toolRunner(makeTool()));
    expect(next).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^SECRET-\w+\n$/), stderr: '', timedOut: false });
    expect(loot).toBe('');
  });

  it('control: against a dumpable shell the same subshell finds its input through /proc and reads the next command', async () => {
    const { next, loot, secret } = await subshellLurk(sessionRunner(await dumpableSession()));
    expect(loot).toContain(secret);
    expect(next.timedOut).toBe(true);
  });

  it("output a background program writes after its call ended, by any route, reaches no later call", async () => {
    const dir = freshDir('late');
    const run = toolRunner(makeTool());
    expect((await run(`python3 thief.py late ${dir} &`)).exitCode).toBe(0);
    await waitUntil('the late writer to start', () => existsSync(join(dir, 'ready')));
    const next = await run(`echo next; touch ${dir}/started; while [ ! -e ${dir}/wrote ]; do sleep 0.02; done; echo end`);
    expect(next).toMatchObject({ exitCode: 0, stdout: 'next\nend\n', stderr: '', timedOut: false });
    expect(await run('echo after')).toMatchObject({ stdout: 'after\n', stderr: '' });
  });

  it('control: the same writes made while their own call runs are that call’s output', async () => {
    const dir = freshDir('late-own');
    const run = toolRunner(makeTool());
    const value = await run(`python3 thief.py late ${dir} & touch ${dir}/started; wait`);
    expect(value.stdout).toBe('LATE\n');
    expect(value.stderr).toBe('LATE\n');
  });

  // As a non-root user, `unshare -r` maps the user's uid to root in a nested namespace, whose
  // capabilities then cover the user's own files: enough to list the shell's unlistable directory
  // and learn the pipes' names (measured with bwrap run as nobody). The bash sandbox denies it.
  const NEW_USER_NAMESPACE =
    'unshare -U true; echo "unshare rc=$?"; python3 -c "' +
    'import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); ' +
    'r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0); ' +
    'libc.syscall(60, 0) if r == 0 else None; ' +
    'print(\'clone\', \'ok\' if r > 0 else os.strerror(ctypes.get_errno())); ' +
    'r = libc.syscall(435, 0, 0); print(\'clone3\', os.strerror(ctypes.get_errno()))"';

  it('a program cannot make a user namespace, which would give it capabilities over the shell’s directory', async () => {
    const value = await toolRunner(makeTool())(NEW_USER_NAMESPACE);
    expect(value.stdout).toBe('unshare rc=1\nclone Operation not permitted\nclone3 Function not implemented\n');
  });

  it('control: the one-shot bash, which does not ask for the rule, lets a program make one', async () => {
    const tool = createBashTool({ policy: resolveWorkspacePolicy({ cwd: ws }), sandbox: 'auto' });
    const value = await Promise.resolve(
      tool.execute({ command: NEW_USER_NAMESPACE }, { signal: new AbortController().signal, callId: 'h', deferContext() {} }),
    );
    expect(value.stdout).toBe('unshare rc=0\nclone ok\nclone3 Invalid argument\n');
  });

  it("a command's text cannot read a nonce through the shell's saved descriptors", async () => {
    const run = toolRunner(makeTool());
    const grab =
      'x=; for fd in 3 4 5 6 7 8 9 10 11 12 13 14 15; do IFS= read -r -t 0.2 -d "" -u $fd y 2>/dev/null; x+=$y; done; ' +
      'if [[ $x =~ (__ptc_end_[0-9a-f]{32}) ]]; then printf "\\n%s 0\\n" "${BASH_REMATCH[1]}"; printf "\\n%s 0\\n" "${BASH_REMATCH[1]}" >&2; fi; ' +
      'echo after; (exit 5)';
    expect(await run(grab)).toMatchObject({ exitCode: 5, stdout: 'after\n', stderr: '' });
    expect(await run('echo next')).toMatchObject({ exitCode: 0, stdout: 'next\n' });
  });

  it("control: a command's text that opens the call's input pipe itself does read the nonce (the text is the shell)", async () => {
    const run = toolRunner(makeTool());
    const grab =
      'exec 9<"$__ptc_in"; IFS= read -r -t 1 -d "" -u 9 x; exec 9<&-; ' +
      'if [[ $x =~ (__ptc_end_[0-9a-f]{32}) ]]; then printf "\\n%s 0\\n" "${BASH_REMATCH[1]}"; printf "\\n%s 0\\n" "${BASH_REMATCH[1]}" >&2; fi; ' +
      'echo after; (exit 5)';
    expect(await run(grab, 3_000)).toMatchObject({ exitCode: 0, stdout: '' });
  });
});
