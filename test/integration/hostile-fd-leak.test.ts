// Hostile programs against descriptors the host inherited (docs/security.md, "Host-private state";
// docs/sandbox.md, "Inherited descriptors"). The test starts a real host with a socket at fd 251
// that is not close-on-exec, as a host's own parent (a shell, make's jobserver, a supervisor) may
// leave one, and writes a secret into it. Sandboxed programs then try to read it, write to it and
// see it in /proc/self/fd: a Node program, a child process of that program, a Python program, a
// bash tool command and a persistent-bash command, each under bwrap, launched by the host itself
// (spawner off) and through the spawner (after its warm-up). Control: the same host with the
// covering turned off through the lower-level test function (setInheritedFdCovering, not an env var
// a program could set) gets through.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Socket } from 'node:net';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;
const fixture = join(root, 'test/fixtures/fd-leak-host.mjs');
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-hfd-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const LEAK_FD = 251;
const SECRET = 'the-host-parents-secret';

type Fds = Record<string, string | null>;
interface Probe {
  readonly read: string | number | null;
  readonly wrote: string | number | null;
  readonly fds: Fds;
}
interface Report {
  readonly leakTarget: string;
  readonly viaSpawner: boolean;
  readonly node: { readonly value: Probe & { readonly child: Probe | { readonly error: unknown } }; readonly error: unknown; readonly sandbox: string; readonly viaSpawner: boolean };
  readonly python: { readonly value: Probe; readonly error: unknown; readonly sandbox: string; readonly viaSpawner: boolean };
  readonly bash: BashReport;
  readonly shell: BashReport;
}
interface BashReport {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly sandbox: { readonly backend: string };
}

/** Runs the fixture host with the leaked socket at LEAK_FD; its report and what reached the socket. */
async function host(scenario: { spawner: boolean; control: boolean }, name: string): Promise<{ report: Report; received: string }> {
  const workspace = join(scratch, name);
  mkdirSync(workspace, { recursive: true });
  const stdio: ('ignore' | 'pipe' | 'inherit')[] = ['ignore', 'pipe', 'inherit'];
  while (stdio.length < LEAK_FD) stdio.push('ignore');
  // libuv dup2()s the socket to LEAK_FD in the child, which leaves it without close-on-exec.
  stdio.push('pipe');
  const child = spawn(process.execPath, ['--import', register, fixture, JSON.stringify({ workspace, leak: LEAK_FD, ...scenario })], { stdio });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const leak = (child.stdio as unknown as readonly (Socket | null)[])[LEAK_FD] as Socket;
  leak.on('error', () => undefined);
  leak.write(`${SECRET}\n`);
  let received = '';
  leak.setEncoding('utf8');
  leak.on('data', (chunk: string) => (received += chunk));
  // Every holder of the host's end (the host, its sandboxes) is gone once the socket ends.
  const ended = new Promise<void>((done) => leak.once('close', () => done()));
  let out = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  await ended;
  expect(code, out).toBe(0);
  return { report: JSON.parse(out.split('\n')[0] as string) as Report, received };
}

/** Every fd target each probe listed. */
function targets(report: Report): string[] {
  const child = report.node.value.child;
  const lists: Fds[] = [report.node.value.fds, report.python.value.fds, ...('fds' in child ? [child.fds] : [])];
  const bash = [report.bash, report.shell].flatMap((run) => run.stdout.split('\n').map((line) => line.split(' ')[1] ?? ''));
  return [...lists.flatMap((fds) => Object.values(fds).filter((target): target is string => target !== null)), ...bash];
}

describe.skipIf(skipWithoutBwrap)('descriptors the host inherited', () => {
  for (const spawner of [false, true]) {
    const how = spawner ? 'through the spawner' : 'launched by the host itself';
    it(`a sandboxed Node program, its child, a Python program and bash commands cannot use the host's inherited fd (${how})`, async () => {
      const { report, received } = await host({ spawner, control: false }, `fixed-${spawner}`);
      expect(report.viaSpawner).toBe(spawner);
      expect(report.node.viaSpawner).toBe(spawner);
      expect(report.python.viaSpawner).toBe(spawner);
      expect(report.node.sandbox).toBe('bwrap');
      expect(report.python.sandbox).toBe('bwrap');
      expect(report.bash.sandbox.backend).toBe('bwrap');
      expect(report.shell.sandbox.backend).toBe('bwrap');
      expect(report.shell.exitCode).toBe(0);
      expect(report.shell.stdout).toContain(`/fd/${LEAK_FD} /dev/null`);
      expect(report.node.error).toBeNull();
      expect(report.python.error).toBeNull();
      expect(report.bash.exitCode).toBe(0);
      expect('fds' in report.node.value.child, JSON.stringify(report.node.value.child)).toBe(true);
      // The host itself holds it (the detector is live), no sandboxed process does.
      expect(report.leakTarget).toMatch(/^socket:\[\d+\]$/);
      expect(targets(report)).not.toContain(report.leakTarget);
      expect(JSON.stringify(report)).not.toContain(SECRET);
      expect(received).toBe('');
      // The spawner's launches get no fd there at all; the host's own get /dev/null (libuv cannot close one).
      const atLeak = [report.node.value.fds[String(LEAK_FD)], report.python.value.fds[String(LEAK_FD)]];
      for (const target of atLeak) expect(target).toBe(spawner ? undefined : '/dev/null');
      if (spawner) expect([report.node.value.read, report.node.value.wrote, report.python.value.wrote]).toEqual(['EBADF', 'EBADF', 9]);
    });

    it(`control: with the covering off, every probe reaches the host's inherited fd (${how})`, async () => {
      const { report, received } = await host({ spawner, control: true }, `control-${spawner}`);
      expect(report.node.viaSpawner).toBe(spawner);
      expect(report.node.value.read).toBe(`${SECRET}\n`);
      expect(report.node.value.fds[String(LEAK_FD)]).toBe(report.leakTarget);
      expect(report.python.value.fds[String(LEAK_FD)]).toBe(report.leakTarget);
      expect(report.bash.stdout).toContain(`/fd/${LEAK_FD} ${report.leakTarget}`);
      expect(report.shell.stdout).toContain(`/fd/${LEAK_FD} ${report.leakTarget}`);
      expect(received.split('\n').sort()).toEqual(['', 'escaped:bash', 'escaped:child', 'escaped:node', 'escaped:python', 'escaped:shell']);
    });
  }
});
