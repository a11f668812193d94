#!/usr/bin/env node
// The `ptc` command. Thin: it parses flags and calls the library. Exit codes (CONTRACT §2):
// 0 success, 1 the program or agent failed, 2 usage or configuration error — never a stack trace
// for a user error.

import { Command, CommanderError, Option } from 'commander';
import { HarnessError } from '../errors.js';
import { runSdkCommand, runToolsCommand } from './commands.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function buildProgram(): Command {
  const program = new Command('ptc')
    .description('Programmatic tool calling: the model writes one TypeScript program against a typed SDK of its tools.')
    .showHelpAfterError('(run `ptc --help` for usage)')
    .exitOverride();

  program
    .command('tools')
    .description('list the visible tools and their schemas')
    .option('--cwd <dir>', 'workspace (default: current directory)')
    .option('--json', 'print the tools as JSON (name, description, inputSchema, outputSchema)')
    .action(async (options: { cwd?: string; json?: boolean }) => {
      process.stdout.write(await runToolsCommand(options));
    });

  program
    .command('sdk')
    .description('print the SDK prompt section the model would see')
    .option('--cwd <dir>', 'workspace (default: current directory)')
    .addOption(new Option('--lang <lang>', 'SDK language').choices(['ts']).default('ts'))
    .action(async (options: { cwd?: string }) => {
      process.stdout.write(await runSdkCommand(options));
    });

  for (const command of program.commands) command.exitOverride();
  return program;
}

async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are "errors" to commander; they already printed what they had to say.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        return 0;
      }
      return EXIT_USAGE;
    }
    if (error instanceof HarnessError) {
      process.stderr.write(`ptc: ${error.message}\n`);
      return error.code === 'CONFIG' ? EXIT_USAGE : EXIT_FAILED;
    }
    process.stderr.write(`ptc: internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    return EXIT_FAILED;
  }
}

process.exitCode = await main(process.argv.slice(2));
