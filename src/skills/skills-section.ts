// The skills section of the system prompt (docs/skills.md, "In the prompt"): each skill's name and
// description only, within MAX_SKILLS_PROMPT_BYTES; the skills that do not fit are a count with a
// pointer to `ptc skills list`. Bodies are loaded by the `skill` tool when the model asks.

import { MAX_SKILLS_PROMPT_BYTES } from './limits.js';
import type { SkillFile } from './skill-file.js';

export const SKILLS_SECTION_ID = 'skills';

export function renderSkillsSection(skills: readonly Pick<SkillFile, 'name' | 'description'>[], budgetBytes = MAX_SKILLS_PROMPT_BYTES): string {
  if (skills.length === 0) return '';
  const head = [
    '## Skills',
    'Skills are instructions for particular tasks. When a task matches a skill\'s description, call the `skill` tool with its name',
    'first (in a program: `await tools.skill({ name })`): it returns the instructions and the paths of the files beside them, which',
    '`read` can open. Run a skill\'s scripts with `bash` (or from a program); they run in the sandbox like any command.',
    '',
  ].join('\n');
  let used = Buffer.byteLength(head);
  const lines: string[] = [];
  for (const [i, skill] of skills.entries()) {
    const line = `- ${skill.name}: ${skill.description}\n`;
    const rest = skills.length - i - 1;
    // Room for this line plus, when more follow, the summary line.
    const summaryBytes = rest > 0 ? 120 : 0;
    if (used + Buffer.byteLength(line) + summaryBytes > budgetBytes) {
      lines.push(`- … and ${skills.length - i} more skills, not listed here for space: \`ptc skills list\` shows them; call \`skill\` with a name to load one.\n`);
      break;
    }
    used += Buffer.byteLength(line);
    lines.push(line);
  }
  return `${head}${lines.join('')}`.trimEnd();
}
