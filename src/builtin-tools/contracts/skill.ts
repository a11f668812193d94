// The contract of `skill` (src/skills/skill-tool.ts, docs/builtin-tools.md): zod, the one source of its
// types and wire schemas.

import { z } from 'zod';

export const input = z.strictObject({
  name: z.string().min(1).describe('The skill\'s name, as listed under "Skills" in the system prompt.'),
});

export const output = z.strictObject({
  name: z.string(),
  dir: z.string().describe('The skill\'s folder (absolute); relative paths in the body are relative to it.'),
  body: z.string().describe('The skill\'s instructions (SKILL.md without its front matter).'),
  files: z.array(z.string()).describe('Absolute paths of the files beside SKILL.md, readable with `read`.'),
  moreFiles: z.int().describe('Files not listed (past the limit).'),
});
