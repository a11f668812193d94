// A runner of the exec server (docs/exec-server.md, "Runners"): a `ptc` process that loaded the
// exec path's modules before any request came, then runs the command lines the server hands it,
// one at a time, with exactly the code a one-shot `ptc` runs (runCli). Its stdout and stderr
// writes go to the server over the IPC channel, in order; a run ends with its exit code.
//
// Before each command line it takes the client's working directory and environment. The server
// hands a runner only requests whose environment is the one it was started with (volatile
// variables aside, server.ts), so what modules read from the environment as they load holds. After
// each run the runner starts the sandboxed child the same command line would ask for next
// (exec-speculation.ts: a guess, checked against the final policy before any program runs on it).
// A runner serves no further command line after one that imported user code (a plugin), read
// stdin, or after RUNNER_MAX_RUNS runs or RUNNER_MAX_RSS_BYTES of memory: it exits and the server
// starts a fresh one.

import process from 'node:process';
import { userCodeImported } from '../../presets/user-code.js';
import { RUNNER_MAX_RSS_BYTES, RUNNER_MAX_RUNS } from '../limits.js';
import { definedEnv, sortedEnvEntries } from './frames.js';
import type { RunnerMessage, ServerMessage } from './runner-messages.js';

type Write = typeof process.stdout.write;

let active = false;
let runs = 0;
let guessKey: string | undefined;
let retiring = false;

/** stdout/stderr writes during a run become `out` messages; between runs they go where they always did (the server's log). */
function capture(stream: NodeJS.WriteStream, fd: 1 | 2): void {
  const original = stream.write.bind(stream) as Write;
  const write = (chunk: string | Uint8Array, encodingOrDone?: BufferEncoding | ((error?: Error | null) => void), done?: (error?: Error | null) => void): boolean => {
    if (!active) return original(chunk, encodingOrDone as BufferEncoding, done);
    const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
    const encoding = typeof encodingOrDone === 'string' ? encodingOrDone : 'utf8';
    const data = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    send({ type: 'out', fd, data: new Uint8Array(data) }, callback);
    return true;
  };
  stream.write = write as Write;
}

function send(message: RunnerMessage, done?: (error?: Error | null) => void): void {
  process.send?.(message, undefined, {}, (error: Error | null) => done?.(error));
}

function replaceEnv(env: Readonly<Record<string, string>>): void {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
}

const keyOf = (args: readonly string[], cwd: string, env: Readonly<Record<string, string>>) => JSON.stringify([args, cwd, sortedEnvEntries(env)]);

/** Why this runner must not serve another command line, or undefined. */
function retireReason(usedStdin: boolean): string | undefined {
  const imported = userCodeImported();
  if (imported !== undefined) return `it imported user code (${imported})`;
  if (usedStdin) return 'its stdin was read';
  if (runs >= RUNNER_MAX_RUNS) return `it ran ${runs} command lines`;
  if (process.memoryUsage.rss() > RUNNER_MAX_RSS_BYTES) return 'its memory passed the bound';
  return undefined;
}

async function serve(message: ServerMessage): Promise<void> {
  const speculation = await import('../exec-speculation.js');
  const key = keyOf(message.args, message.cwd, message.env);
  // A child started for another command line is not this one's.
  if (key !== guessKey) await speculation.resetSpeculation();
  process.chdir(message.cwd);
  replaceEnv(message.env);
  const { runCli } = await import('../run-cli.js');
  runs++;
  active = true;
  let code = 1;
  try {
    code = await runCli(message.args);
  } finally {
    active = false;
    process.exitCode = undefined;
  }
  const retire = retireReason(message.stdin);
  send({ type: 'exit', code, ...(retire !== undefined ? { retire } : {}) });
  if (retire !== undefined) {
    retiring = true;
    process.disconnect?.();
    return;
  }
  // The next command line is most likely this one again: its child boots now, while idle.
  await speculation.resetSpeculation();
  speculation.speculateExec(message.args);
  guessKey = key;
}

async function boot(): Promise<void> {
  capture(process.stdout, 1);
  capture(process.stderr, 2);
  // Everything a trivial `ptc exec` loads, loaded now instead of inside the client's wait.
  await Promise.all([
    import('../run-cli.js'),
    import('../program.js'),
    import('commander'),
    import('../commands/exec.js'),
    import('../commands.js'),
    import('../exec-speculation.js'),
    import('../exec-speculation-check.js'),
    import('../config-options.js'),
    import('../compile-cache.js'),
    import('../strip-cache.js'),
    import('../../languages/program-language.js'),
    import('../../languages/typescript/runtime/index.js'),
    import('../../languages/typescript/runtime/strip.js'),
  ]);
  const guess = process.env['PTC_RUNNER_GUESS'];
  delete process.env['PTC_RUNNER_GUESS'];
  if (guess !== undefined) {
    const args = JSON.parse(guess) as string[];
    (await import('../exec-speculation.js')).speculateExec(args);
    guessKey = keyOf(args, process.cwd(), definedEnv(process.env));
  }
  let queue = Promise.resolve();
  process.on('message', (message: ServerMessage) => {
    queue = queue.then(() => serve(message)).catch((error: unknown) => {
      process.stderr.write(`ptc exec server runner: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
  });
  // A server gone (killed, crashed) leaves no runner behind, nor the child it holds for the next run.
  process.on('disconnect', () => {
    if (!retiring) process.exit(0);
  });
  send({ type: 'ready' });
}

await boot();
