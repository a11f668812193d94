// The `ptc` program: commander, the root options and hooks, and the commands of command-table.ts.
// Loaded by main.ts only when the command line needs commander (not for a precomputed --help or
// --version, nor a cached `ptc tools` / `ptc sdk`; docs/benchmarks.md, "CLI start-up").

import { Command } from 'commander';
import { COMMANDS } from './command-table.js';
import { packageVersion, type CliIo } from './command-options.js';

/**
 * The program with the commands `args` can reach: only the named command's module when the first
 * argument names one (`ptc tools ...`), every command otherwise (`ptc --help`, `ptc help x`, an
 * unknown command, which commander answers with the full list and its "did you mean").
 */
export async function buildProgram(io: CliIo, args: readonly string[]): Promise<Command> {
  const named = COMMANDS.find((row) => row.name === args[0]);
  const registers = await Promise.all((named !== undefined ? [named] : COMMANDS).map((row) => row.load()));
  const program = new Command('ptc')
    .description('Programmatic tool calling: the model writes one TypeScript program against a typed SDK of its tools.')
    .version(packageVersion(), '-V, --version', 'print the ptc-harness version')
    .showHelpAfterError('(run `ptc --help` for usage)')
    .exitOverride()
    // Before any action imports its modules (they are most of what a command compiles); --help and
    // --version run no action and load nothing for it.
    .hook('preAction', async () => (await import('./compile-cache.js')).enableCompileCache())
    // The config files fill what the command line did not give (docs/config.md).
    .hook('preAction', async (_program, action) => {
      const { applyConfig } = await import('./config-options.js');
      await applyConfig(action, process.env, (line) => void process.stderr.write(`${line}\n`));
    });
  for (const register of registers) register(program, io);
  for (const command of program.commands) command.exitOverride();
  return program;
}
