// Hostile programs against the exec servers' root (docs/security.md, "Host-only directories"): a
// sandboxed program whose allowed paths cover `/tmp/ptc-exec-<uid>` must not list it, read a
// server's token or connect to its socket, with or without network (without it the seccomp filter
// denies unix sockets anyway; with it only the mask stands in the way). Real bwrap, real programs,
// a real listening unix socket. Controls: the same program reads a file and connects to a socket
// next to the root in the same allowed tree, and, with the mask taken out of the profile through
// the lower-level builder, reads the token and reaches the server. A path inside the root is
// refused before anything runs.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';

import { buildBwrapArgs, readHostLayout } from '../../src/sandbox/bwrap.js';
import { execServerRoot } from '../../src/sandbox/host-only.js';
import { defaultSandboxEnv, launch, probeSandbox, type SandboxPolicy } from '../../src/sandbox/index.js';
import { realExecPath, resolvePolicyPaths } from '../../src/sandbox/policy.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';
import { readAll } from '../helpers/read-all.js';

const SECRET = `exec-server-token-${randomBytes(8).toString('hex')}`;
const SIBLING = `next-to-the-root-${randomBytes(8).toString('hex')}`;

/** Everything under /tmp, so `--allow-read /tmp` covers the root and the controls alike. */
const scratch = realpathSync(mkdtempSync('/tmp/ptc-hesd-'));
const ws = join(scratch, 'ws');
const root = execServerRoot();

interface Target {
  readonly root: string;
  readonly dir: string;
  readonly token: string;
  readonly sock: string;
  readonly sibling: string;
  readonly siblingSock: string;
}

interface Listening {
  readonly server: Server;
  connections: number;
}

/** A unix socket server at `path` that counts connections and drops them. */
async function listen(path: string): Promise<Listening> {
  const state: { server?: Server; connections: number } = { connections: 0 };
  const server = createServer((socket) => {
    state.connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return Object.assign(state, { server });
}

/** A server's directory under the root, as the exec server makes it: 0700, a 0600 token, a socket. */
async function serverDir(name: string): Promise<{ dir: string; listening: Listening }> {
  if (!existsSync(root)) mkdirSync(root, { mode: 0o700 });
  const dir = join(root, name);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'token'), SECRET, { mode: 0o600 });
  chmodSync(join(dir, 'token'), 0o600);
  const listening = await listen(join(dir, 'sock'));
  return { dir, listening };
}

let target: Target;
let server: Listening;
let sibling: Listening;

beforeAll(async () => {
  mkdirSync(ws);
  writeFileSync(join(scratch, 'sibling.txt'), SIBLING);
  const made = await serverDir(`hesd-${process.pid}-${randomBytes(4).toString('hex')}`);
  server = made.listening;
  sibling = await listen(join(scratch, 'sock'));
  target = {
    root,
    dir: made.dir,
    token: join(made.dir, 'token'),
    sock: join(made.dir, 'sock'),
    sibling: join(scratch, 'sibling.txt'),
    siblingSock: join(scratch, 'sock'),
  };
});

afterAll(async () => {
  await Promise.all([server, sibling].filter(Boolean).map((l) => new Promise<void>((resolve) => l.server.close(() => resolve()))));
  if (target !== undefined) rmSync(target.dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The attack: list the root and the server's dir, read the token, connect to the socket; then the
 * controls next to the root. With `wait`, it first reads one line of stdin (the server is made
 * after the sandbox started). Prints one JSON object.
 */
const PROGRAM = `
const fs = require('fs');
const net = require('net');
const t = JSON.parse(process.argv[1]);
const out = { ran: true };
const read = (p) => { try { return 'ok:' + fs.readFileSync(p, 'utf8'); } catch (e) { return 'err:' + e.code; } };
const list = (p) => { try { return 'ok:' + fs.readdirSync(p).join(','); } catch (e) { return 'err:' + e.code; } };
const connect = (p) => new Promise((done) => {
  let s;
  try { s = net.connect(p); } catch (e) { done('err:' + e.code); return; }
  s.on('connect', () => { s.destroy(); done('connected'); });
  s.on('error', (e) => done('err:' + e.code));
});
(async () => {
  if (t.wait) await new Promise((resolve) => process.stdin.once('data', resolve));
  out.list = list(t.root);
  out.listDir = list(t.dir);
  out.token = read(t.token);
  out.connect = await connect(t.sock);
  out.sibling = read(t.sibling);
  out.siblingConnect = await connect(t.siblingSock);
  process.stdout.write(JSON.stringify(out));
})();
`;

type Report = Record<string, string | boolean>;


function policy(over: Partial<SandboxPolicy>): SandboxPolicy {
  return { cwd: ws, read: [], write: [], network: false, processes: true, env: defaultSandboxEnv(ws), ...over };
}

/** Runs PROGRAM under bwrap through launch(); with `wait`, makes the target once the program is up and then lets it go on. */
async function attack(over: Partial<SandboxPolicy>, options: { wait?: () => Promise<Target> } = {}): Promise<Report> {
  const launched = await launch({
    command: { kind: 'node', command: process.execPath, args: ['-e', PROGRAM, JSON.stringify({ ...target, wait: options.wait !== undefined })] },
    policy: policy(over),
    mode: 'required',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onTestFinished(async () => {
    launched.process.killTree();
    await launched.process.waitGone();
  });
  expect(launched.report.backend).toBe('bwrap');
  const { child } = launched.process;
  const stdout = readAll(child.stdout);
  const stderr = readAll(child.stderr);
  if (options.wait === undefined) child.stdin?.end();
  else {
    // Let the program start inside its sandbox before the server's directory exists.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = await options.wait();
    child.stdin?.end(`${JSON.stringify(late)}\n`);
  }
  const text = await stdout;
  expect(text, await stderr).not.toBe('');
  return JSON.parse(text) as Report;
}

describe.skipIf(skipWithoutBwrap)('the exec servers\' root under bwrap', () => {
  it('--allow-read /tmp with network: the root is empty, the token and the socket are not there; the file and socket next to it are', async () => {
    const before = server.connections;
    const siblingBefore = sibling.connections;
    const out = await attack({ read: ['/tmp'], network: true });
    expect(out['ran']).toBe(true);
    expect(out['list']).toBe('ok:');
    expect(out['listDir']).toBe('err:ENOENT');
    expect(out['token']).toBe('err:ENOENT');
    expect(out['connect']).toBe('err:ENOENT');
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(server.connections).toBe(before);
    // Control: the same program reaches what lies next to the root in the same allowed tree.
    expect(out['sibling']).toBe(`ok:${SIBLING}`);
    expect(out['siblingConnect']).toBe('connected');
    expect(sibling.connections).toBe(siblingBefore + 1);
  }, 60_000);

  it('--allow-read /tmp without network: the same, and unix sockets are denied besides', async () => {
    const before = server.connections;
    const out = await attack({ read: ['/tmp'], network: false });
    expect(out['ran']).toBe(true);
    expect(out['list']).toBe('ok:');
    expect(out['listDir']).toBe('err:ENOENT');
    expect(out['token']).toBe('err:ENOENT');
    expect(out['connect']).toMatch(/^err:/);
    expect(server.connections).toBe(before);
    expect(out['sibling']).toBe(`ok:${SIBLING}`);
    // Without network the seccomp filter denies every unix socket (where a filter is defined).
    if ((await probeSandbox()).seccomp) expect(out['siblingConnect']).toBe('err:EACCES');
  }, 60_000);

  it('a read-only workspace of /tmp with network: the same', async () => {
    const before = server.connections;
    const out = await attack({ cwd: '/tmp', readOnlyWorkspace: true, network: true, env: defaultSandboxEnv('/tmp') });
    expect(out['ran']).toBe(true);
    expect(out['list']).toBe('ok:');
    expect(out['token']).toBe('err:ENOENT');
    expect(out['connect']).toBe('err:ENOENT');
    expect(server.connections).toBe(before);
    expect(out['sibling']).toBe(`ok:${SIBLING}`);
    expect(out['siblingConnect']).toBe('connected');
  }, 60_000);

  it('a server started after the sandbox did stays out of its sight', async () => {
    let late: Listening | undefined;
    let lateDir: string | undefined;
    onTestFinished(async () => {
      if (late !== undefined) await new Promise<void>((resolve) => late?.server.close(() => resolve()));
      if (lateDir !== undefined) rmSync(lateDir, { recursive: true, force: true });
    });
    const out = await attack(
      { read: ['/tmp'], network: true },
      {
        wait: async () => {
          const made = await serverDir(`hesd-late-${process.pid}-${randomBytes(4).toString('hex')}`);
          late = made.listening;
          lateDir = made.dir;
          return { ...target, dir: made.dir, token: join(made.dir, 'token'), sock: join(made.dir, 'sock') };
        },
      },
    );
    expect(out['ran']).toBe(true);
    expect(out['list']).toBe('ok:');
    expect(out['token']).toBe('err:ENOENT');
    expect(out['connect']).toBe('err:ENOENT');
    expect(late?.connections).toBe(0);
    expect(out['siblingConnect']).toBe('connected');
  }, 60_000);

  it('control: with the mask taken out of the profile, the same program lists the root, reads the token and reaches the server', async () => {
    const probe = await probeSandbox();
    const before = server.connections;
    const args = buildBwrapArgs({
      layout: readHostLayout(),
      paths: resolvePolicyPaths({ cwd: ws, read: ['/tmp'], write: [] }),
      runtimeRead: [],
      hidden: [],
      network: true,
      env: defaultSandboxEnv(ws),
      command: realExecPath(),
      args: ['-e', PROGRAM, JSON.stringify({ ...target, wait: false })],
    });
    const child: ChildProcess = spawn(probe.bwrapPath as string, args, { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const stderr = readAll(child.stderr);
    const text = await readAll(child.stdout);
    expect(text, await stderr).not.toBe('');
    const out = JSON.parse(text) as Report;
    expect(out['list']).toContain(target.dir.slice(root.length + 1));
    expect(out['token']).toBe(`ok:${SECRET}`);
    expect(out['connect']).toBe('connected');
    expect(server.connections).toBe(before + 1);
  }, 60_000);

  it('--allow-read <root>/<name> (or the root) is refused with CONFIG before anything runs', async () => {
    const marker = join(ws, 'ran-anyway');
    for (const read of [[target.dir], [root]]) {
      let spawned = false;
      await expect(
        launch({
          command: { kind: 'node', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] },
          policy: policy({ read, network: true }),
          mode: 'required',
          stdio: ['ignore', 'ignore', 'ignore'],
          beforeSpawn: () => {
            spawned = true;
          },
        }),
      ).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringContaining(read[0] as string) });
      expect(spawned).toBe(false);
    }
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});
