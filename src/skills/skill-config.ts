// The skills settings in effect (docs/skills.md, "Configuration"): the row's config, then the user's
// config file `skills:` key, then a trusted workspace's `.ptc/config.yaml` (later values win; lists
// of folders add up). Shared by the `skills` row and `ptc skills`.

import { projectConfigPath, userConfigPath } from '../config/config-paths.js';
import { readConfigFile } from '../config/load-config-file.js';
import { discoverSkills, skillLayers, type SkillSet, type SkillsSettings } from './skill-layers.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface SkillSetOptions {
  readonly workspace: string;
  readonly env: Env;
  readonly trusted: boolean;
  /** The `skills` row's own config. */
  readonly row?: SkillsSettings;
  readonly shippedDir?: string;
}

export function skillsSettings(options: SkillSetOptions): SkillsSettings {
  const files = [readConfigFile(userConfigPath(options.env))?.values.skills, options.trusted ? readConfigFile(projectConfigPath(options.workspace))?.values.skills : undefined];
  let merged: SkillsSettings = { ...(options.row ?? {}) };
  for (const file of files) {
    if (file === undefined) continue;
    merged = { ...merged, ...file, dirs: [...(merged.dirs ?? []), ...(file.dirs ?? [])] };
  }
  return merged;
}

export function loadSkillSet(options: SkillSetOptions): SkillSet {
  const settings = skillsSettings(options);
  const layers = skillLayers({
    workspace: options.workspace,
    env: options.env,
    settings,
    trusted: options.trusted,
    ...(options.shippedDir !== undefined ? { shippedDir: options.shippedDir } : {}),
  });
  return discoverSkills(layers, settings);
}
