// The exec server's client: what `ptc exec` does first (docs/exec-server.md). It finds this build's
// server, sends the command line with the working directory and the environment, relays stdin when
// the program comes from `-`, and writes what the server relays back. No server (no token file, no
// listener), or one that declines, resolves undefined before anything was written, and the caller
// runs the command itself. Loads only node: modules and a few small files; in the bin they are one
// file, dist/cli/ptc-client.cjs (scripts/bundle-bin.mjs).

import net from 'node:net';
import { buildStamp } from '../fast-start.js';
import { definedEnv, encodeFrame, FrameReader, type ExecRequest, type Frame } from './frames.js';
import { readToken, serverPaths } from './paths.js';

const EXIT_FAILED = 1;

/** Runs `args` (`exec ...`) on this build's exec server: its exit code, or undefined to run it here. */
export async function execOnServer(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number | undefined> {
  if (env['PTC_NO_EXEC_SERVER'] === '1') return undefined;
  const paths = serverPaths(env);
  const token = paths === undefined ? undefined : readToken(paths);
  if (paths === undefined || token === undefined) return undefined;
  const request: ExecRequest = {
    token,
    args,
    cwd: process.cwd(),
    env: definedEnv(env),
    stamp: buildStamp(),
    node: process.version,
    stdin: args.includes('-'),
  };
  return new Promise<number | undefined>((resolve) => {
    const socket = net.connect(paths.socket);
    const reader = new FrameReader();
    // Once the server accepted, the command may have done things: it never runs a second time here.
    let accepted = false;
    let settled = false;
    const settle = (code: number | undefined) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (request.stdin && accepted) process.stdin.destroy();
      resolve(code);
    };
    const onFrame = (frame: Frame) => {
      if (frame.kind === 'accepted') {
        accepted = true;
        if (request.stdin) forwardStdin(socket);
      } else if (frame.kind === 'stdout') process.stdout.write(frame.body);
      else if (frame.kind === 'stderr') process.stderr.write(frame.body);
      else if (frame.kind === 'exit') settle(exitCodeOf(frame.body));
      else if (frame.kind === 'declined') settle(accepted ? EXIT_FAILED : undefined);
    };
    socket.on('connect', () => socket.write(encodeFrame('request', JSON.stringify(request))));
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch {
        frames = [];
        socket.destroy();
      }
      for (const frame of frames) onFrame(frame);
    });
    // A server gone before it accepted: the command runs here. Gone halfway: say so, fail.
    socket.on('close', () => {
      if (!settled && accepted) process.stderr.write('ptc: the exec server ended before the command did; run it again, or set PTC_NO_EXEC_SERVER=1 to run it without the server\n');
      settle(accepted ? EXIT_FAILED : undefined);
    });
    socket.on('error', () => undefined);
  });
}

function forwardStdin(socket: net.Socket): void {
  process.stdin.on('data', (chunk: Buffer) => socket.write(encodeFrame('stdin', chunk)));
  process.stdin.on('end', () => socket.write(encodeFrame('stdin-end', '')));
  process.stdin.on('error', () => socket.write(encodeFrame('stdin-end', '')));
}

function exitCodeOf(body: Buffer): number {
  try {
    const { code } = JSON.parse(body.toString('utf8')) as { code?: unknown };
    return typeof code === 'number' && Number.isInteger(code) && code >= 0 && code < 256 ? code : EXIT_FAILED;
  } catch {
    return EXIT_FAILED;
  }
}
