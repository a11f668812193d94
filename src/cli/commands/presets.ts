// `ptc presets list|show`: the presets that resolve here (src/cli/preset-commands.ts).

import type { Command } from 'commander';
import { cwdOption, pluginOption, workspaceFlags, type CliIo } from '../command-options.js';
import { askWorkspaceTrust, terminalQuestionIo } from '../trust-command.js';

export function register(program: Command, { print }: CliIo): void {
  const presets = program.command('presets').description('the presets that resolve here (shipped, workspace .ptc/presets, $PTC_HOME/presets)');
  presets
    .command('list')
    .description('name, where it comes from, description')
    .addOption(cwdOption())
    .action(async (o: { cwd?: string }) => {
      const { runPresetsList } = await import('../preset-commands.js');
      print(runPresetsList({ ...o, env: process.env }));
    });
  presets
    .command('show')
    .description('the rows of a preset, its tools and their presentation')
    .argument('<name>', 'a preset name or a path to a preset file')
    .addOption(pluginOption())
    .addOption(cwdOption())
    .option('--json', 'print the assembled preset as JSON')
    .action(async (name: string, o: { plugin?: string[]; cwd?: string; json?: boolean }) => {
      await askWorkspaceTrust(name, o.cwd, terminalQuestionIo(process.env));
      const { runPresetsShow } = await import('../preset-commands.js');
      print(await runPresetsShow({ name, ...workspaceFlags({ ...o, preset: name }), ...(o.json ? { json: true } : {}), env: process.env }));
    });
  presets.exitOverride();
  for (const command of presets.commands) command.exitOverride();
}
