// What the `ptc` bin does, in order: the quick answers (quick-answer.ts), written straight to fd 1;
// for `exec`, this user's exec server when one runs for this build (docs/exec-server.md); anything
// else imports run-cli.js and runs the command here. Everything this module imports statically is
// bundled into the bin (dist/cli/ptc.cjs, scripts/bundle-bin.mjs): keep those imports to node:
// modules and small dependency-free files; anything bigger is a dynamic import, which stays a
// module of its own (docs/benchmarks.md, "CLI start-up").

import fs from 'node:fs';
import { quickAnswer } from './quick-answer.js';

/** Runs `argv` (the arguments after `ptc`) as the bin does and returns the exit code. */
export async function startCli(argv: readonly string[]): Promise<number> {
  const quick = await quickAnswer(argv);
  if (quick.kind === 'answer') {
    writeOut(quick.stdout);
    return quick.exitCode;
  }
  exitQuietlyOnClosedStdout();
  if (quick.args[0] === 'exec') {
    const served = await (await import('./exec-server/client.js')).execOnServer(quick.args);
    if (served !== undefined) return served;
  }
  return (await import('./run-cli.js')).runCommand(quick.args, quick.slot);
}

/**
 * Writes `text` to fd 1 without making the process.stdout stream (a few milliseconds on a pipe). A
 * non-blocking descriptor that is full hands the rest to the stream; a closed pipe (`ptc --help |
 * head -1`) is the reader's choice and ends the process quietly.
 */
function writeOut(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  try {
    while (written < bytes.length) written += fs.writeSync(1, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') process.exit(0);
    if (code !== 'EAGAIN') throw error;
    exitQuietlyOnClosedStdout();
    process.stdout.write(bytes.subarray(written));
  }
}

/** A closed pipe on stdout (`ptc exec ... | head`) is the reader's choice, not our failure. */
function exitQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
