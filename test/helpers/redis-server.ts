// A real Redis (Debian's redis-server) for the queue tests: started on a free loopback port with
// its own temp dir and an append-only file synced on every write, so a restart keeps the queue.
// Without redis-server the tests skip and say so once; with PTC_REQUIRE_REDIS=1 (CI, after
// installing it) they run anyway and fail, so a broken CI machine cannot pass by skipping.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const file = path.join(dir, name);
    if (dir !== '' && fs.existsSync(file)) return file;
  }
  for (const dir of ['/usr/bin', '/usr/sbin', '/usr/local/bin']) if (fs.existsSync(path.join(dir, name))) return path.join(dir, name);
  return undefined;
}

export const redisServerPath = which('redis-server');
export const redisRequired = process.env['PTC_REQUIRE_REDIS'] === '1';
/** Pass to `describe.skipIf` for tests that need a real Redis. */
export const skipWithoutRedis = redisServerPath === undefined && !redisRequired;
if (skipWithoutRedis) console.warn('Skipping the queue tests: redis-server is not installed (apt-get install -y redis-server; .ci/run installs it).');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** SIGTERM (Redis syncs its append-only file) and wait for the exit. */
  stop(): Promise<void>;
  /** Start again on the same port and dir. */
  start(): Promise<void>;
  /** stop() and remove the dir. */
  close(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  if (redisServerPath === undefined) throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-redis-'));
  let child: ChildProcess | undefined;
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const proc = spawn(
        redisServerPath,
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--logfile', ''],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = proc;
      let output = '';
      const onData = (d: Buffer): void => {
        output += d.toString();
        if (output.includes('Ready to accept connections')) resolve();
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
    });
  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    stop,
    start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
