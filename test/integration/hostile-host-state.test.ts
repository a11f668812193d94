// Hostile programs against the host's own state (issue 26; docs/security.md, "Host-private state",
// "The stale sweep"). A host whose TMPDIR lies inside the workspace (`TMPDIR=./tmp`) must not let a
// program take the spawner's socket, point a new sandbox's channel at a host socket, or forge the
// probe cache; and a host's stale sweep must not end the runs of a live host in another pid
// namespace. Real hosts (child processes), real bwrap, real programs. Each attack has a control: the
// same attack with the protection turned off through lower-level test functions, which gets through.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, watch, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { freezerSupport, probeSandbox, taskLimitSupport } from '../../src/sandbox/index.js';
import { groupMembers } from '../../src/sandbox/cgroup-v1.js';
import { realExecPath } from '../../src/sandbox/policy.js';
import { privateRoot } from '../../src/sandbox/private-dir.js';
import { probeCacheKey, readCachedProbe } from '../../src/sandbox/probe-cache.js';
import { buildSandboxFilter, encodeFilter } from '../../src/sandbox/seccomp-filter.js';
import { pidAlive, sweepStaleState } from '../../src/sandbox/stale.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';
import { sizeOf } from '../helpers/file-size.js';
import { waitUntil } from '../helpers/wait-until.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;
const fixture = join(root, 'test/fixtures/host-state-host.mjs');
const hasPython = existsSync('/usr/bin/python3') || existsSync('/usr/local/bin/python3');
const uid = process.getuid?.() ?? 0;
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-hhs-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SECRET = 'only-the-victim-may-read-this';

/** A workspace with `TMPDIR=<workspace>/tmp`, and a victim's workspace holding a secret. */
function setting(name: string): { workspace: string; tmp: string; victimCwd: string; secretFile: string } {
  // Short names: a unix socket's path has at most 107 bytes, and the spawner's lies below `tmp`.
  const workspace = join(scratch, name, 'w');
  const tmp = join(workspace, 'tmp');
  const victimCwd = join(scratch, name, 'v');
  mkdirSync(tmp, { recursive: true });
  mkdirSync(victimCwd, { recursive: true });
  const secretFile = join(victimCwd, 'secret.txt');
  writeFileSync(secretFile, SECRET);
  return { workspace, tmp, victimCwd, secretFile };
}

/** Runs the fixture host once with TMPDIR at `tmp` and returns its one-line JSON report. */
async function host(scenario: Record<string, unknown> & { tmp: string }, command: readonly string[] = []): Promise<Record<string, unknown>> {
  const args = ['--import', register, fixture, JSON.stringify(scenario)];
  const child = command.length === 0 ? spawn(process.execPath, args, { env: { ...process.env, TMPDIR: scenario.tmp }, stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(command[0] as string, [...command.slice(1), process.execPath, ...args], { env: { ...process.env, TMPDIR: scenario.tmp }, stdio: ['ignore', 'pipe', 'inherit'] });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  return JSON.parse(await firstLine(child)) as Record<string, unknown>;
}

function firstLine(child: ChildProcess): Promise<string> {
  let text = '';
  child.stdout?.setEncoding('utf8');
  return new Promise<string>((done, fail) => {
    child.stdout?.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) done(text.split('\n')[0] as string);
    });
    child.once('exit', () => setImmediate(() => fail(new Error(`the host exited without a report: ${text}`))));
  });
}

describe.skipIf(skipWithoutBwrap || !hasPython)('the spawner socket with TMPDIR inside the workspace', () => {
  // Old code: the socket dir was <TMPDIR>/ptc-spawner-<pid>-*, inside the workspace; the program
  // replaced the socket with its own server and ran code in the next run's sandbox.
  it('a program cannot take the spawner socket and run code in another run\'s sandbox', async () => {
    const s = setting('h');
    const report = await host({ name: 'hijack', ...s });
    expect(report['spawnerUp']).toBe(true);
    expect(report['attackError']).toBeNull();
    expect(report['attack']).toEqual({ found: false, stolen: null });
    expect(JSON.stringify(report)).not.toContain(SECRET);
    expect(report['victim']).toBe('victim ran');
  }, 60_000);

  // The same attack when the root was fine at first and a later run's --allow-write covers it: the
  // spawner made in it stops taking launches and its dir goes; a new one starts in the new root.
  it('a run whose --allow-write covers the private root finds no spawner socket there, and later launches use a new spawner', async () => {
    const s = setting('wide');
    const outside = join(scratch, 'wide', 'elsewhere');
    mkdirSync(outside, { recursive: true });
    // The workspace is elsewhere, so the root starts out in TMPDIR; the attack run widens onto it.
    const report = await host({ name: 'hijack', ...s, workspace: outside, attackWrite: [s.tmp] });
    expect(report['spawnerUp']).toBe(true);
    expect(report['attackError']).toBeNull();
    expect(report['attack']).toEqual({ found: false, stolen: null });
    expect(report['victim']).toBe('victim ran');
    expect(report['spawnerAgain']).toBe(true);
  }, 60_000);

  it('control: with the private root inside the workspace and no peer check, the program steals the secret', async () => {
    const s = setting('hc');
    const pinRoot = join(s.tmp, 'r');
    mkdirSync(pinRoot, { mode: 0o700 });
    const report = await host({ name: 'hijack', ...s, control: true, pinRoot, noPeerCheck: true });
    expect(report['spawnerUp']).toBe(true);
    expect(report['attack']).toEqual({ found: true, stolen: SECRET });
    // The victim's own run still went through (the host fell back to spawning it itself).
    expect(report['victim']).toBe('victim ran');
  }, 60_000);

  describe('a symlink at the socket path to a host socket, without network', () => {
    let server: Server;
    const headers: string[] = [];
    const hostSocket = join(scratch, 'host.sock');

    beforeAll(async () => {
      // A host unix socket that records the first line of whatever connects.
      server = createServer((socket) => {
        socket.setEncoding('utf8');
        socket.on('error', () => undefined);
        socket.once('data', (chunk: string) => headers.push(chunk.split('\n')[0] as string));
      });
      await new Promise<void>((done) => server.listen(hostSocket, done));
    });
    afterAll(() => server.close());

    // Old code: the helper connected through the symlink, so the new sandbox's stderr and channel
    // were streams to the host socket.
    it('a new sandbox\'s channel is never connected to the host socket', async () => {
      headers.length = 0;
      const s = setting('s');
      const report = await host({ name: 'symlink', ...s, hostSocket });
      expect(report['spawnerUp']).toBe(true);
      expect(report['attackError']).toBeNull();
      expect(report['attack']).toEqual({ found: false, stolen: null });
      expect(report['victim']).toBe('victim ran');
      expect(headers).toEqual([]);
    }, 60_000);

    it('with the socket dir inside the workspace, the helper still connects only to the host (peer check)', async () => {
      headers.length = 0;
      const s = setting('sp');
      const pinRoot = join(s.tmp, 'r');
      mkdirSync(pinRoot, { mode: 0o700 });
      const report = await host({ name: 'symlink', ...s, hostSocket, control: true, pinRoot });
      expect(report['attack']).toEqual({ found: true, stolen: null });
      expect(report['victim']).toBe('victim ran');
      expect(headers).toEqual([]);
    }, 60_000);

    it('control: with the socket dir inside the workspace and no peer check, the host socket gets the streams', async () => {
      headers.length = 0;
      const s = setting('sc');
      const pinRoot = join(s.tmp, 'r');
      mkdirSync(pinRoot, { mode: 0o700 });
      const report = await host({ name: 'symlink', ...s, hostSocket, control: true, pinRoot, noPeerCheck: true });
      expect(report['attack']).toEqual({ found: true, stolen: null });
      await waitUntil('the helper to connect to the host socket', () => headers.length >= 2);
      expect(headers.map((line) => line.split(' ')[1]).sort()).toEqual(['channel', 'stderr']);
    }, 60_000);
  });
});

describe.skipIf(skipWithoutBwrap || !hasPython)('every host-side temp file with TMPDIR inside the workspace', () => {
  /** Names created in `dirs` while `work` runs (inotify: a dir made and removed at once is seen too). */
  async function created(dirs: readonly string[], work: () => Promise<unknown>): Promise<string[]> {
    const seen = new Set<string>();
    const watchers = dirs.map((dir) => watch(dir, (_event, name) => name !== null && seen.add(join(dir, name))));
    try {
      await work();
    } finally {
      for (const watcher of watchers) watcher.close();
    }
    return [...seen];
  }

  // Old code: the probe's cwd, each launch's seccomp filter file, the probe cache, the spawner's
  // socket dir and the run dir of a run without bwrap were all made in TMPDIR, inside the workspace,
  // where the program could swap them between the host's write and its read.
  it('no host state is made inside the workspace: not the probe, the filter file, the spawner, the cache or a run dir', async () => {
    const s = setting('q');
    const names = await created([s.tmp], () => host({ name: 'quiet', ...s }));
    expect(names).toEqual([]);
  }, 60_000);

  it('control: with the private root pinned inside the workspace, the watcher sees each kind made there', async () => {
    const s = setting('qc');
    const pinRoot = join(s.tmp, 'r');
    mkdirSync(pinRoot, { mode: 0o700 });
    const names = (await created([s.tmp, pinRoot], () => host({ name: 'quiet', ...s, control: true, pinRoot }))).map((name) => basename(name));
    for (const kind of ['probe-', 'seccomp-', 'spawner-', 'run-']) expect(names.some((name) => name.startsWith(kind))).toBe(true);
  }, 60_000);
});

describe.skipIf(skipWithoutBwrap)('the probe cache with TMPDIR inside the workspace', () => {
  const s = setting('forge');
  const reader = join(scratch, 'forge', 'reader');
  mkdirSync(reader, { recursive: true });

  /** The key a host computes here, as if the program had worked it out (it can: every input is readable). */
  async function hostKey(): Promise<{ key: string; bwrapPath: string }> {
    const probe = await probeSandbox();
    const filter = buildSandboxFilter({ denySpawn: true, denyUnixSockets: true, killSignalExitCodes: true, denyAsyncIo: true });
    const key = probeCacheKey(probe.bwrapPath as string, realExecPath(), filter === undefined ? undefined : encodeFilter(filter));
    return { key: key as string, bwrapPath: probe.bwrapPath as string };
  }

  // Old code: the cache was <TMPDIR>/ptc-harness-sandbox-probe-<uid>.json; a program rewrote it to
  // "no filter", and the next host ran every sandbox without seccomp while reporting full enforcement.
  it("a forged 'no filter' answer is not taken: the next host still runs with the seccomp filter", async () => {
    const { key, bwrapPath } = await hostKey();
    const written = await host({ name: 'forge-write', workspace: s.workspace, tmp: s.tmp, key, bwrapPath, uid });
    expect(written['error']).toBeNull();
    // What the program wrote is a well-formed entry that passes the cache file's own checks.
    const accepted = readCachedProbe(key, join(s.tmp, `ptc-${uid}`)) ?? readCachedProbe(key, s.tmp);
    expect(accepted).toEqual({ bwrapPath, seccomp: false });
    const next = await host({ name: 'forge-read', workspace: reader, tmp: s.tmp });
    expect(next['error']).toBeNull();
    expect(next['seccomp']).toBe(process.arch === 'x64');
    if (process.arch === 'x64') expect(next['unixSocket']).toBe('EACCES');
  }, 60_000);

  it('control: a host that takes the forged answer (its probe says no filter) lets the unix socket through', async () => {
    const { bwrapPath } = await hostKey();
    const without = await host({ name: 'forge-read', workspace: reader, tmp: s.tmp, control: true, probe: { bwrapPath, seccomp: false } });
    expect(without['error']).toBeNull();
    expect(without['unixSocket']).toBe('listening');
    expect(without['enforced']).toMatchObject({ network: 'full' });
  }, 60_000);
});

const unshare = ['/usr/bin/unshare', '/bin/unshare'].find((path) => existsSync(path));
const groupRoots = [taskLimitSupport().root, freezerSupport().root].filter((path): path is string => path !== undefined);
const noNamespaces = unshare === undefined || uid !== 0 ? 'needs root and unshare (util-linux) to start a host in its own pid namespace' : undefined;
if (noNamespaces !== undefined) console.log(`stale-sweep namespace test skipped: ${noNamespaces}`);

describe.skipIf(skipWithoutBwrap || noNamespaces !== undefined || freezerSupport().root === undefined)('the stale sweep and a host in another pid namespace', () => {
  it('a sweep leaves a live host\'s running sandbox and its dirs alone when that host runs in another pid namespace', async () => {
    const workspace = join(scratch, 'namespace');
    mkdirSync(workspace, { recursive: true });
    const beatFile = join(workspace, 'beat.txt');
    const beatOffFile = join(workspace, 'beat-off.txt');
    // The other host's pid, in its namespace, is one that is free here (just freed), as a real host
    // in a container often has: set through ns_last_pid in the new namespace.
    const free = spawnSync('true').pid as number;
    const scenario = { name: 'namespace-host', workspace, tmp: tmpdir(), beatFile, beatOffFile };
    const inner = `echo ${free - 1} > /proc/sys/kernel/ns_last_pid && "$0" "$@"; true`;
    const report = await host(scenario, [unshare as string, '--pid', '--fork', '--kill-child', '--mount-proc', 'sh', '-c', inner]);
    const otherPid = report['pid'] as number;
    const tag = report['tag'] as string;
    expect(otherPid).toBe(free);
    expect(pidAlive(otherPid)).toBe(false);
    // The long run's groups (those of the finished warm-up runs are the other host's own to remove)
    // and its lasting dirs (the run dir of the run without bwrap, the spawner's).
    const groups = groupRoots
      .flatMap((groupRoot) => readdirSync(groupRoot).filter((name) => name.startsWith(`${tag}-`)).map((name) => join(groupRoot, name)))
      .filter((group) => groupMembers(group).length > 0);
    const dirs = readdirSync(privateRoot())
      .filter((name) => name.includes(`-${tag}-`) && /^(ptc-)?(run|spawner)-/.test(name))
      .map((name) => join(privateRoot(), name));
    expect(groups.length).toBeGreaterThan(0);
    expect(dirs.some((dir) => basename(dir).includes('run-'))).toBe(true);
    const members = groups.flatMap((group) => groupMembers(group));
    expect(members.length).toBeGreaterThan(0);

    // The sweep a new host runs, from a fresh process (the production entry).
    const sweep = spawnSync(
      process.execPath,
      ['--import', register, '--input-type=module', '-e', `const m = await import(${JSON.stringify(pathToFileURL(join(root, 'src/sandbox/index.ts')).href)}); await m.sweepStaleRunState();`],
      { stdio: 'inherit' },
    );
    expect(sweep.status).toBe(0);
    // Both runs go on: their files keep growing; the groups, their members and the dirs are all there.
    for (const file of [beatFile, beatOffFile]) {
      const before = sizeOf(file);
      await waitUntil(`${file} to grow after the sweep`, () => sizeOf(file) > before + 3);
    }
    for (const group of groups) expect(existsSync(group)).toBe(true);
    for (const dir of dirs) expect(existsSync(dir)).toBe(true);
    expect(members.every((pid) => pidAlive(pid))).toBe(true);

    // Control: the old rule (a pid not alive here means a dead owner) ends that live host's sandbox
    // and removes its run dir.
    await sweepStaleState((owner) => !pidAlive(owner.pid));
    await waitUntil('the other host\'s sandbox to be killed by the old rule', () => members.every((pid) => !pidAlive(pid)));
    expect(dirs.filter((dir) => basename(dir).includes('run-')).every((dir) => !existsSync(dir))).toBe(true);
  }, 90_000);
});
