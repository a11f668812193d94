// The skills settings in effect (docs/skills.md, "Configuration"): the row's config, then the user's
// config file `skills:` key, then a trusted workspace's `.ptc/config.yaml` (later values win; lists
// of folders add up). Shared by the `skills` row and `ptc skills`.

import fs from 'node:fs';
import path from 'node:path';
import { projectConfigPath, userConfigPath } from '../config/config-paths.js';
import { readConfigFile } from '../config/load-config-file.js';
import { WORKSPACE_SKILL_DIRS } from './skill-dirs.js';
import { discoverSkills, skillLayers, type SkillSet, type SkillsSettings } from './skill-layers.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface SkillSetOptions {
  readonly workspace: string;
  readonly env: Env;
  /** Whether the workspace is trusted; a function is called only when the workspace has a skill folder or a config file. */
  readonly trusted: boolean | (() => boolean);
  /** The `skills` row's own config. */
  readonly row?: SkillsSettings;
  readonly shippedDir?: string;
}

/** Trust is asked only when the workspace has something trust would decide (the check hashes files). */
function trustedOf(options: SkillSetOptions): boolean {
  if (typeof options.trusted === 'boolean') return options.trusted;
  const has = [projectConfigPath(options.workspace), ...WORKSPACE_SKILL_DIRS.map((d) => path.join(options.workspace, d))].some((p) => fs.existsSync(p));
  return has && options.trusted();
}

export function skillsSettings(options: SkillSetOptions & { readonly trusted: boolean }): SkillsSettings {
  const files = [readConfigFile(userConfigPath(options.env))?.values.skills, options.trusted ? readConfigFile(projectConfigPath(options.workspace))?.values.skills : undefined];
  let merged: SkillsSettings = { ...(options.row ?? {}) };
  for (const file of files) {
    if (file === undefined) continue;
    merged = { ...merged, ...file, dirs: [...(merged.dirs ?? []), ...(file.dirs ?? [])] };
  }
  return merged;
}

export function loadSkillSet(options: SkillSetOptions): SkillSet {
  const trusted = trustedOf(options);
  const settings = skillsSettings({ ...options, trusted });
  const layers = skillLayers({
    workspace: options.workspace,
    env: options.env,
    settings,
    trusted,
    ...(options.shippedDir !== undefined ? { shippedDir: options.shippedDir } : {}),
  });
  return discoverSkills(layers, settings);
}
