// launch(), the one way a confined process starts (docs/sandbox-launch.md): real processes under
// the backend `auto` picks here (bwrap where usable, else node-permission or none), and under the
// fallback forced through the probe override.

import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

import { afterAll, afterEach, describe, expect, it } from 'vitest';

import {
  defaultSandboxEnv,
  launch,
  launchReport,
  overrideSandboxProbe,
  selectBackend,
  type ConfinedProcess,
  type LaunchCommand,
  type SandboxBackendName,
  type SandboxPolicy,
} from './index.js';
import { readAll } from '../../test/helpers/read-all.js';

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-launch-')));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

let started: Pick<ConfinedProcess, 'killTree' | 'waitGone'> | undefined;
afterEach(async () => {
  overrideSandboxProbe(undefined);
  started?.killTree();
  await started?.waitGone();
  started = undefined;
});

const policy: SandboxPolicy = { cwd: ws, read: [], write: [], network: false, processes: true, env: defaultSandboxEnv(ws) };
const node = (script: string): LaunchCommand => ({ kind: 'node', command: process.execPath, args: ['-e', script] });


/** The pids of this process's children (every thread's list), read from /proc. */
function ownChildren(): Set<string> {
  const out = new Set<string>();
  for (const tid of readdirSync('/proc/self/task')) {
    for (const pid of readFileSync(`/proc/self/task/${tid}/children`, 'utf8').split(' ')) if (pid !== '') out.add(pid);
  }
  return out;
}

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

describe('launch', () => {
  it('starts the command under the policy with the given stdio and reports the backend it got', async () => {
    const launched = await launch({
      command: node('process.stdout.write(String(process.env.HOME) + " " + process.cwd())'),
      policy,
      mode: 'auto',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started = launched.process;
    expect(launched.report.backend).toBe(await selectBackend('auto', 'node'));
    expect(await readAll(launched.process.child.stdout)).toBe(`${ws} ${ws}`);
  });

  it('feeds a program its stdin and hands over stderr and the fd 3 channel paused (the runtimes\' children)', async () => {
    const launched = await launch({
      command: node('const fs = require("node:fs"); const input = fs.readFileSync(0, "utf8"); fs.writeSync(3, "got " + input); fs.writeSync(2, "err");'),
      policy,
      mode: 'auto',
      stdio: { program: { stdin: 'the bootstrap' } },
    });
    started = launched.process;
    const [, , stderr, channel] = launched.process.child.stdio as unknown as [unknown, unknown, Readable, Readable];
    expect(channel.isPaused()).toBe(true);
    const [fromChannel, fromStderr] = await Promise.all([readAll(channel), readAll(stderr)]);
    expect(fromChannel).toBe('got the bootstrap');
    expect(fromStderr).toBe('err');
  });

  it('gives a policy function the backend the mode selects', async () => {
    let seen: SandboxBackendName | undefined;
    const launched = await launch({
      command: node('0'),
      policy: (backend) => {
        seen = backend;
        return policy;
      },
      mode: 'auto',
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    started = launched.process;
    expect(seen).toBe(launched.report.backend);
    // Without bwrap the same mode selects the fallback, and the function hears that.
    overrideSandboxProbe({ seccomp: false, detail: 'forced by a test' });
    const fallback = await launch({
      command: node('0'),
      policy: (backend) => {
        seen = backend;
        return policy;
      },
      mode: 'auto',
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    await started.waitGone();
    started = fallback.process;
    expect(seen).toBe('node-permission');
    expect(fallback.report.backend).toBe('node-permission');
  });

  it('spawns nothing and releases the plan when beforeSpawn throws, rejecting with its error', async () => {
    const childrenBefore = ownChildren();
    const fdsBefore = openFds();
    const refusal = new Error('ended while planning');
    let report: unknown;
    await expect(
      launch({
        command: node('setInterval(() => {}, 1000)'),
        policy,
        mode: 'auto',
        stdio: ['ignore', 'ignore', 'ignore'],
        beforeSpawn: (planned) => {
          report = planned;
          throw refusal;
        },
      }),
    ).rejects.toBe(refusal);
    expect(report).toEqual(await launchReport({ command: node('0'), policy, mode: 'auto' }));
    expect([...ownChildren()].filter((pid) => !childrenBefore.has(pid))).toEqual([]);
    // Under bwrap the plan held the seccomp filter's fd: closed again.
    expect(openFds()).toBeLessThanOrEqual(fdsBefore);
  });

  it('refuses `required` without bwrap with SANDBOX_UNAVAILABLE, naming the fix, before anything starts', async () => {
    overrideSandboxProbe({ seccomp: false, detail: 'forced by a test' });
    const childrenBefore = ownChildren();
    const refusal = launch({ command: node('0'), policy, mode: 'required', stdio: ['ignore', 'ignore', 'ignore'] });
    await expect(refusal).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    await expect(refusal).rejects.toThrow(/apt-get install bubblewrap|--sandbox auto/);
    expect([...ownChildren()].filter((pid) => !childrenBefore.has(pid))).toEqual([]);
  });
});
