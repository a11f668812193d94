// The `ptc` command line, run once in this process: the fast answers, the output cache, then
// commander and the named command (docs/benchmarks.md, "CLI start-up"). Shared by the bin
// (src/cli/main.ts) and the exec server's runners (src/cli/exec-server/runner.ts), which run exactly
// this for a client's command line.

import { HarnessError } from '../errors.js';
import type { CommandOutput } from './commands.js';
import { fastAnswer } from './fast-start.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

/** Runs `argv` (the arguments after `ptc`) and returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const print = (out: CommandOutput) => {
    process.stdout.write(out.stdout);
    if (out.stderr) process.stderr.write(out.stderr);
    exitCode = out.exitCode;
  };
  // `ptc` alone on a terminal is a conversation.
  const args = argv.length === 0 && process.stdin.isTTY && process.stdout.isTTY ? ['chat'] : [...argv];
  const fast = fastAnswer(args, process.stdout);
  if (fast !== undefined) {
    process.stdout.write(fast);
    return 0;
  }
  // `ptc tools` and `ptc sdk`: the same output as last time when nothing it came from changed.
  const cache = args[0] === 'tools' || args[0] === 'sdk' ? await import('./output-cache.js') : undefined;
  const slot = cache?.outputCacheSlot(args);
  if (cache !== undefined && slot !== undefined) {
    const cached = cache.readCachedOutput(slot);
    if (cached !== undefined) {
      process.stdout.write(cached.stdout);
      return cached.exitCode;
    }
  }
  // `ptc exec`: its sandboxed child starts now, on the guess of the last run, while the rest loads
  // (src/cli/exec-speculation.ts); the program runs on it only if the harness asks for exactly it.
  if (args[0] === 'exec') void import('./exec-speculation.js').then((m) => m.speculateExec(args));
  const recording = slot !== undefined ? (await import('./output-recorder.js')).recordOutput(slot) : undefined;
  let code: number = EXIT_FAILED;
  try {
    code = await parseAndRun(args, print, () => exitCode);
    return code;
  } finally {
    recording?.finish(code);
  }
}

async function parseAndRun(args: readonly string[], print: (out: CommandOutput) => void, exitCode: () => number): Promise<number> {
  try {
    const [{ buildProgram }, { CommanderError }] = await Promise.all([import('./program.js'), import('commander')]);
    try {
      const program = await buildProgram({ print }, args);
      await program.parseAsync(args, { from: 'user' });
      return exitCode();
    } catch (error) {
      // Commander already printed its message: --help and --version exit 0, a missing command or a
      // bad flag is a usage error.
      if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
      throw error;
    }
  } catch (error) {
    if (error instanceof HarnessError) {
      process.stderr.write(`ptc: ${error.message}\n`);
      return error.code === 'CONFIG' ? EXIT_USAGE : EXIT_FAILED;
    }
    process.stderr.write(`ptc: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_FAILED;
  }
}

/** A closed pipe on stdout (`ptc exec ... | head`) is the reader's choice, not our failure. */
export function exitQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
