// `ptc skills list` and `ptc skills show NAME` (docs/skills.md, "Commands"): every skill of every
// layer, which file wins for each name and what it overrides, and one skill's body with the files
// beside it. The chat's `/skills` prints the same list. The work is imported when a command runs.

import { Command } from 'commander';
import type { CommandOutput } from './commands.js';
import { runSkillsList, runSkillsShow } from '../command-line/skills-report.js';

type Env = Readonly<Record<string, string | undefined>>;

export function buildSkillsCommand(print: (out: CommandOutput) => void, env: Env = process.env): Command {
  const skills = new Command('skills').description('list the Agent Skills the skills row loads (shipped, user, workspace), or show one');
  skills
    .command('list')
    .description('every skill by name: the file that wins, its layer, and what it overrides')
    .option('--cwd <dir>', 'the workspace (default: current directory)')
    .option('--json', 'print JSON')
    .action(async (o: { cwd?: string; json?: boolean }) => print(await runSkillsList({ ...(o.cwd !== undefined ? { cwd: o.cwd } : {}), json: o.json === true, env })));
  skills
    .command('show')
    .description("a skill's description, file, body and the files beside it")
    .argument('<name>', 'the skill')
    .option('--cwd <dir>', 'the workspace (default: current directory)')
    .action(async (name: string, o: { cwd?: string }) => print(await runSkillsShow(name, { ...(o.cwd !== undefined ? { cwd: o.cwd } : {}), env })));
  return skills;
}
