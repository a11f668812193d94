// The `--help` text of every `ptc` command as commander writes it, computed at build time
// (scripts/build-cli-help.mjs writes it to dist/cli/help.json) so that `ptc --help` and
// `ptc <command> --help` print it without loading commander (src/cli/fast-start.ts). The width is
// commander's default when stdout is not a terminal; a terminal of another width gets commander's
// own output. src/cli/help-text.test.ts checks the text against commander's, so it cannot drift.

import type { Command } from 'commander';
import { buildProgram } from './program.js';

/** commander's help width when stdout is not a terminal (and a terminal this wide). */
export const PRECOMPUTED_HELP_WIDTH = 80;

/** The help text of each command path ('' is `ptc` itself, 'sessions list' a subcommand). */
export async function renderAllHelp(width: number = PRECOMPUTED_HELP_WIDTH): Promise<Record<string, string>> {
  const program = await buildProgram({ print: () => {} }, []);
  const texts: Record<string, string> = {};
  const visit = (command: Command, path: readonly string[]) => {
    let text = '';
    command.configureOutput({ writeOut: (s) => void (text += s), getOutHelpWidth: () => width, getOutHasColors: () => false });
    command.outputHelp();
    texts[path.join(' ')] = text;
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return texts;
}
