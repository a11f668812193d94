// `ptc exec-server start | stop | status | run` (docs/exec-server.md): this user's resident exec
// server for this build, which makes a `ptc exec` start about as fast as `node` itself. Off until
// started; it stops by itself after --idle ms without a request. `run` keeps it in the foreground
// (a service manager, the tests); `start` runs it in the background with its notes in `<dir>/log`.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import type { CommandOutput } from './commands.js';
import { positiveInteger } from './flags.js';
import { EXEC_SERVER_START_MS } from './limits.js';
import { ensureServerDirs, readToken, serverPathsOrThrow, type ServerPaths } from './exec-server/paths.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));
const POLL_MS = 20;

export function buildExecServerCommand(print: (out: CommandOutput) => void): Command {
  const command = new Command('exec-server').description("this user's resident server that starts `ptc exec` as fast as node (off until started)");
  command
    .command('start')
    .description('start the server in the background (it stops after --idle ms without a request)')
    .option('--idle <ms>', 'stop after this long without a request (default 1800000, 30 min)', positiveInteger('--idle'))
    .action(async (o: { idle?: number }) => print(await startInBackground(o.idle)));
  command
    .command('run')
    .description('run the server in the foreground until --idle, SIGTERM or `ptc exec-server stop`')
    .option('--idle <ms>', 'stop after this long without a request (default 1800000, 30 min)', positiveInteger('--idle'))
    .action(async (o: { idle?: number }) => print(await runInForeground(o.idle)));
  command
    .command('stop')
    .description("stop this build's server")
    .action(async () => print(await stopServer()));
  command
    .command('status')
    .description("whether this build's server runs, and where")
    .action(async () => print(await status()));
  return command;
}

async function running(paths: ServerPaths): Promise<number | undefined> {
  const { answers } = await import('./exec-server/server.js');
  if (readToken(paths) === undefined || !(await answers(paths.socket))) return undefined;
  const pid = Number.parseInt(fs.readFileSync(paths.pid, 'utf8'), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function runInForeground(idleMs: number | undefined): Promise<CommandOutput> {
  const { startExecServer } = await import('./exec-server/server.js');
  const server = await startExecServer(idleMs !== undefined ? { idleMs } : {});
  const stop = () => void server.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stderr.write(`ptc exec server: listening on ${server.paths.socket} (pid ${process.pid})\n`);
  await server.stopped;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  return { stdout: '', exitCode: 0 };
}

async function startInBackground(idleMs: number | undefined): Promise<CommandOutput> {
  const paths = serverPathsOrThrow();
  const already = await running(paths);
  if (already !== undefined) return { stdout: `ptc exec server already runs (pid ${already}, ${paths.socket})\n`, exitCode: 0 };
  ensureServerDirs(paths);
  const logFile = path.join(paths.dir, 'log');
  const log = fs.openSync(logFile, 'a', 0o600);
  const child = spawn(process.execPath, [...process.execArgv, MAIN, 'exec-server', 'run', ...(idleMs !== undefined ? ['--idle', String(idleMs)] : [])], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.unref();
  const until = Date.now() + EXEC_SERVER_START_MS;
  while (Date.now() < until && exited === undefined) {
    const pid = await running(paths);
    if (pid !== undefined) return { stdout: `ptc exec server started (pid ${pid}, ${paths.socket}); \`ptc exec-server stop\` ends it\n`, exitCode: 0 };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join('\n');
  return { stdout: '', stderr: `ptc: the exec server did not start${tail ? `:\n${tail}` : ''}\n(its log: ${logFile})\n`, exitCode: 1 };
}

async function stopServer(): Promise<CommandOutput> {
  const paths = serverPathsOrThrow();
  const pid = await running(paths);
  if (pid === undefined) return { stdout: 'no exec server runs for this build\n', exitCode: 0 };
  process.kill(pid, 'SIGTERM');
  const until = Date.now() + EXEC_SERVER_START_MS;
  while (Date.now() < until && (await running(paths)) !== undefined) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  return { stdout: `ptc exec server stopped (pid ${pid})\n`, exitCode: 0 };
}

async function status(): Promise<CommandOutput> {
  const paths = serverPathsOrThrow();
  const pid = await running(paths);
  if (pid === undefined) return { stdout: `no exec server runs for this build (\`ptc exec-server start\`; its socket would be ${paths.socket})\n`, exitCode: 1 };
  return { stdout: `ptc exec server runs (pid ${pid}, ${paths.socket})\n`, exitCode: 0 };
}
