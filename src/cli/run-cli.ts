// The `ptc` command line, run once in this process: the quick answers (quick-answer.ts), then
// commander and the named command (docs/benchmarks.md, "CLI start-up"). runCli is what the exec
// server's runners run for a client's command line (src/cli/exec-server/runner.ts); the bin
// (src/cli/start.ts) answers quickly itself and imports this module only for runCommand.

import { HarnessError } from '../errors.js';
import type { CommandOutput } from './commands.js';
import type { OutputCacheSlot } from './output-cache.js';
import { quickAnswer } from './quick-answer.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

/** Runs `argv` (the arguments after `ptc`) and returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const quick = await quickAnswer(argv);
  if (quick.kind === 'run') return runCommand(quick.args, quick.slot);
  process.stdout.write(quick.stdout);
  return quick.exitCode;
}

/**
 * Runs a command line quickAnswer could not answer (quick-answer.ts): commander and the named
 * command. `slot`: where a `ptc tools` or `ptc sdk` records its output for the next time.
 */
export async function runCommand(args: readonly string[], slot?: OutputCacheSlot): Promise<number> {
  let exitCode = 0;
  const print = (out: CommandOutput) => {
    process.stdout.write(out.stdout);
    if (out.stderr) process.stderr.write(out.stderr);
    exitCode = out.exitCode;
  };
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
