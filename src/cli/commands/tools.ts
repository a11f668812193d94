// `ptc tools [--json]`: the visible tools and their schemas (src/cli/commands.ts, runToolsCommand).

import type { Command } from 'commander';
import { cwdOption, mcpConfigOption, pluginOption, presetOption, workspaceFlags, type CliIo } from '../command-options.js';
import { askWorkspaceTrust, terminalQuestionIo } from '../trust-command.js';

export function register(program: Command, { print }: CliIo): void {
  program
    .command('tools')
    .description('list the visible tools and their schemas')
    .addOption(presetOption())
    .addOption(pluginOption())
    .addOption(mcpConfigOption())
    .addOption(cwdOption())
    .option('--json', 'print the tools as JSON (name, description, inputSchema, outputSchema, executionMode)')
    .action(async (o: { preset: string; plugin?: string[]; mcpConfig?: string[]; cwd?: string; json?: boolean }) => {
      await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runToolsCommand } = await import('../commands.js');
      print(await runToolsCommand({ ...workspaceFlags(o), ...(o.json ? { json: true } : {}) }));
    });
}
