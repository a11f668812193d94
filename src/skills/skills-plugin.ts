// The `skills` row (docs/skills.md): discovers the skills of every layer once when the row loads,
// lists their names and descriptions in the system prompt, registers the `skill` tool that loads a
// body on demand, and lets `read` reach exactly the loaded skills' folders. Malformed skills are
// CONFIG warnings on stderr; the others still load.

import { z } from 'zod';
import type { Plugin } from '../context/context.js';
import { loggerOf } from '../context/logger.js';
import { addReadRoots } from '../builtin-tools/read-roots.js';
import { SECTION_ORDER } from '../system-prompt.js';
import '../harness-settings.js';
import { formatWarning } from './skill-file.js';
import { createSkillTool } from './skill-tool.js';
import { vetSchemas } from '../tools/vetted-schemas.js';
import { loadSkillSet } from './skill-config.js';
import { renderSkillsSection, SKILLS_SECTION_ID } from './skills-section.js';

const skillsRowConfig = z
  .strictObject({
    dirs: z.array(z.string().min(1)).optional(),
    claude: z.boolean().optional(),
    agents: z.boolean().optional(),
    enabled: z.array(z.string().min(1)).optional(),
    disabled: z.array(z.string().min(1)).optional(),
  })
  .default({});

export type SkillsRowConfig = z.infer<typeof skillsRowConfig>;

export const skillsPlugin: Plugin<SkillsRowConfig> = {
  name: 'skills',
  inject: ['tools', 'harness'],
  config: skillsRowConfig,
  apply(ctx, config) {
    const settings = ctx.harness;
    const set = loadSkillSet({
      workspace: settings.cwd,
      env: settings.env ?? process.env,
      trusted: settings.trustWorkspace === true ? true : () => settings.workspaceTrusted?.() ?? false,
      row: config,
    });
    for (const warning of set.warnings) loggerOf(ctx).log('warn', formatWarning(warning));
    const section = renderSkillsSection(set.skills);
    // Its schemas and example are checked by src/builtin-tools/contracts/contracts.test.ts, so listing
    // tools compiles nothing and loads no contract (docs/builtin-tools.md, "Start-up").
    ctx.tools.register(vetSchemas(createSkillTool(set.skills)));
    ctx.effect(() => addReadRoots(settings.policy, set.skills.map((s) => s.dir)));
    ctx.on('system-prompt/assemble', (assembly) =>
      section === '' ? assembly : { ...assembly, sections: [...assembly.sections, { id: SKILLS_SECTION_ID, order: SECTION_ORDER.toolGuidance + 50, text: section }] },
    );
  },
};
