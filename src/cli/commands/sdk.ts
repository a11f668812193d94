// `ptc sdk`: the SDK prompt section the model would see (src/cli/commands.ts, runSdkCommand).

import { Option, type Command } from 'commander';
import { cwdOption, mcpConfigOption, pluginOption, presetOption, workspaceFlags, type CliIo } from '../command-options.js';
import { askWorkspaceTrust, terminalQuestionIo } from '../trust-command.js';

export function register(program: Command, { print }: CliIo): void {
  program
    .command('sdk')
    .description('print the SDK prompt section the model would see')
    .addOption(presetOption())
    .addOption(pluginOption())
    .addOption(mcpConfigOption())
    .addOption(cwdOption())
    .addOption(new Option('--lang <lang>', "SDK language (default: the preset runtime's)").choices(['ts', 'py']))
    .action(async (o: { preset: string; plugin?: string[]; mcpConfig?: string[]; cwd?: string; lang?: 'ts' | 'py' }) => {
      await askWorkspaceTrust(o.preset, o.cwd, terminalQuestionIo(process.env));
      const { runSdkCommand } = await import('../commands.js');
      print(await runSdkCommand({ ...workspaceFlags(o), ...(o.lang !== undefined ? { lang: o.lang } : {}) }));
    });
}
