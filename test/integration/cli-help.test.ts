// `ptc --help` and every `ptc <command> --help` of the built CLI answer from the text precomputed at
// build time (dist/cli/help.json, src/cli/help-text.ts) without loading commander; it must be
// exactly what commander prints for the same arguments (docs/benchmarks.md, "CLI start-up").

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommanderError, type Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PTC_BIN } from '../helpers/run-ptc.js';
import { renderAllHelp } from '../../src/cli/help-text.js';
import { buildProgram } from '../../src/cli/program.js';

let dir: string;
beforeAll(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-cli-help-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What commander itself writes to stdout for `args` (stdout not a terminal: width 80). */
async function commanderStdout(args: readonly string[]): Promise<{ stdout: string; code: number }> {
  const program = await buildProgram({ print: () => {} }, args);
  let stdout = '';
  const capture = (command: Command) => {
    // No width, as commander reports it when stdout is not a terminal (its typings say number).
    command.configureOutput({ writeOut: (s) => void (stdout += s), writeErr: () => {}, getOutHelpWidth: () => undefined as unknown as number, getOutHasColors: () => false });
    // Some subcommands exit the process after their help; here that is an exception with the same code.
    command.exitOverride();
    command.commands.forEach(capture);
  };
  capture(program);
  try {
    await program.parseAsync(args, { from: 'user' });
    return { stdout, code: 0 };
  } catch (error) {
    if (error instanceof CommanderError) return { stdout, code: error.exitCode };
    throw error;
  }
}

function builtPtc(args: readonly string[]) {
  const run = spawnSync(process.execPath, [PTC_BIN, ...args], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', HOME: dir }, encoding: 'utf8' });
  return { stdout: run.stdout, code: run.status };
}

describe('precomputed --help', () => {
  it('dist/cli/help.json holds commander’s text for every command, made from this build', async () => {
    const file = JSON.parse(fs.readFileSync(path.join(path.dirname(PTC_BIN), 'help.json'), 'utf8')) as { texts: Record<string, string> };
    const texts = await renderAllHelp();
    expect(Object.keys(texts)).toEqual(expect.arrayContaining(['', 'exec', 'tools', 'sessions list', 'mcp serve', 'config']));
    expect(file.texts).toEqual(texts);
  });

  it('the built ptc prints exactly what commander prints, for --help, -h and help <command>', async () => {
    const paths = Object.keys(await renderAllHelp());
    const cases = [...paths.map((p) => [...(p === '' ? [] : p.split(' ')), '--help']), ['-h'], ['help'], ['help', 'exec'], ['sessions', 'show', '-h']];
    for (const args of cases) {
      const expected = await commanderStdout(args);
      expect(expected.stdout.length, args.join(' ')).toBeGreaterThan(0);
      expect(builtPtc(args), args.join(' ')).toEqual({ stdout: expected.stdout, code: expected.code });
    }
  });
});
