// The `skill` tool (docs/skills.md, "Loading a skill"): the body of one skill by name, with the
// absolute paths of the files beside its SKILL.md (readable with `read`; scripts run through `bash`
// or a program, in the sandbox).

import fs from 'node:fs';
import path from 'node:path';
import { ToolFailedError } from '../errors.js';
import { didYouMean } from '../did-you-mean.js';
import { contractSchemas, type ArgsOf, type ValueOf } from '../builtin-tools/builtin-contract.js';
import { MAX_SKILL_FILES_DEPTH, MAX_SKILL_FILES_LISTED } from './limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { SKILL_FILE_NAME, type SkillFile } from './skill-file.js';

export const SKILL_TOOL_NAME = 'skill';

type Contract = typeof import('../builtin-tools/contracts/skill.js');
export type SkillArgs = ArgsOf<Contract>;
export type SkillOutput = ValueOf<Contract>;

export function createSkillTool(skills: readonly SkillFile[]): ToolDefinition<SkillArgs, SkillOutput> {
  const byName = new Map(skills.map((s) => [s.name, s]));
  return defineTool<SkillArgs, SkillOutput>({
    name: SKILL_TOOL_NAME,
    description:
      'Load a skill by name: returns its instructions (follow them) and the absolute paths of the files beside it, ' +
      'which `read` can open. The skills available are listed under "Skills" in the system prompt.',
    ...contractSchemas('skill', () => import('../builtin-tools/contracts/skill.js')),
    isConcurrencySafe: true,
    // The shipped skill's name: the schema stays the same whatever skills a user has.
    examples: [{ name: 'writing-ptc-programs' }],
    execute(args) {
      const skill = byName.get(args.name);
      if (skill === undefined) {
        const names = [...byName.keys()];
        throw new ToolFailedError(
          `No skill named ${JSON.stringify(args.name)}.${didYouMean(args.name, names)} ` +
            `Call skill with one of: ${names.join(', ') || '(none loaded)'}.`,
        );
      }
      const { files, more } = filesBeside(skill.dir);
      return { name: skill.name, dir: skill.dir, body: skill.body, files, moreFiles: more };
    },
  });
}

/** Regular files under `dir` except its SKILL.md, sorted, bounded; symlinked folders are not entered. */
export function filesBeside(dir: string): { files: string[]; more: number } {
  const files: string[] = [];
  let more = 0;
  const walk = (current: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_SKILL_FILES_DEPTH) walk(full, depth + 1);
      } else if (entry.isFile() && !(current === dir && entry.name === SKILL_FILE_NAME)) {
        if (files.length < MAX_SKILL_FILES_LISTED) files.push(full);
        else more++;
      }
    }
  };
  walk(dir, 0);
  return { files, more };
}
