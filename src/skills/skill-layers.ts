// Where skills come from, lowest first (docs/skills.md, "Layers"): shipped < user
// (`$XDG_CONFIG_HOME/ptc/skills`, plus the configured `dirs`) < `~/.claude/skills` and
// `~/.agents/skills` when turned on < the workspace's `.ptc/skills` (and its `.claude/skills`,
// `.agents/skills` when turned on), the workspace's only when it is trusted. A later layer overrides
// an earlier one by name.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_SKILL_FILE_BYTES } from './limits.js';
import { parseSkillFile, SKILL_FILE_NAME, type SkillFile, type SkillWarning } from './skill-file.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The skills shipped in the package (`skills/` at its root). */
export const SHIPPED_SKILLS_DIR = fileURLToPath(new URL('../../skills/', import.meta.url));

export { WORKSPACE_SKILL_DIRS } from './skill-dirs.js';

export type SkillLayerName = 'shipped' | 'user' | 'workspace';

export interface SkillLayer {
  readonly layer: SkillLayerName;
  readonly dir: string;
}

export interface SkillsSettings {
  /** More user-level folders of skill folders (after `$XDG_CONFIG_HOME/ptc/skills`). */
  readonly dirs?: readonly string[];
  /** Read `.claude/skills` (home and workspace). */
  readonly claude?: boolean;
  /** Read `.agents/skills` (home and workspace). */
  readonly agents?: boolean;
  /** Only these names (when given). */
  readonly enabled?: readonly string[];
  /** Never these names. */
  readonly disabled?: readonly string[];
}

export interface LayerOptions {
  readonly workspace: string;
  readonly env: Env;
  readonly settings: SkillsSettings;
  /** The workspace is trusted: its folders are read. */
  readonly trusted: boolean;
  /** Tests point this elsewhere; default SHIPPED_SKILLS_DIR. */
  readonly shippedDir?: string;
}

/** `$XDG_CONFIG_HOME/ptc/skills`, else `~/.config/ptc/skills`. */
export function userSkillsDir(env: Env): string {
  const xdg = env['XDG_CONFIG_HOME']?.trim();
  const base = xdg !== undefined && xdg !== '' && path.isAbsolute(xdg) ? xdg : path.join(env['HOME'] ?? os.homedir(), '.config');
  return path.join(base, 'ptc', 'skills');
}

/** The folders searched, lowest layer first; the workspace's only when trusted. */
export function skillLayers(options: LayerOptions): SkillLayer[] {
  const { settings, env } = options;
  const home = env['HOME'] ?? os.homedir();
  const layers: SkillLayer[] = [{ layer: 'shipped', dir: options.shippedDir ?? SHIPPED_SKILLS_DIR }, { layer: 'user', dir: userSkillsDir(env) }];
  for (const dir of settings.dirs ?? []) layers.push({ layer: 'user', dir: path.resolve(home, dir.replace(/^~(?=\/|$)/, home)) });
  if (settings.claude === true) layers.push({ layer: 'user', dir: path.join(home, '.claude', 'skills') });
  if (settings.agents === true) layers.push({ layer: 'user', dir: path.join(home, '.agents', 'skills') });
  if (options.trusted) {
    if (settings.claude === true) layers.push({ layer: 'workspace', dir: path.join(options.workspace, '.claude', 'skills') });
    if (settings.agents === true) layers.push({ layer: 'workspace', dir: path.join(options.workspace, '.agents', 'skills') });
    layers.push({ layer: 'workspace', dir: path.join(options.workspace, '.ptc', 'skills') });
  }
  // The same folder twice (the workspace is the home directory): its last place wins.
  const seen = new Set<string>();
  return layers.reverse().filter((l) => (seen.has(l.dir) ? false : (seen.add(l.dir), true))).reverse();
}

export interface FoundSkill extends SkillFile {
  readonly layer: SkillLayerName;
  /** The SKILL.md files of lower layers this one overrides. */
  readonly overrides: readonly string[];
}

export interface SkillSet {
  /** The skills that win, by name (sorted), after enabled/disabled. */
  readonly skills: readonly FoundSkill[];
  /** Skills left out by `enabled`/`disabled`. */
  readonly turnedOff: readonly FoundSkill[];
  readonly warnings: readonly SkillWarning[];
  readonly layers: readonly SkillLayer[];
}

/** Reads every `<dir>/<folder>/SKILL.md` of the layers; a later layer overrides by name. */
export function discoverSkills(layers: readonly SkillLayer[], settings: SkillsSettings = {}): SkillSet {
  const byName = new Map<string, FoundSkill>();
  const warnings: SkillWarning[] = [];
  for (const layer of layers) {
    for (const file of skillFilesIn(layer.dir)) {
      const parsed = readSkill(file);
      warnings.push(...parsed.warnings);
      if (parsed.skill === undefined) continue;
      const earlier = byName.get(parsed.skill.name);
      byName.set(parsed.skill.name, { ...parsed.skill, layer: layer.layer, overrides: earlier ? [...earlier.overrides, earlier.file] : [] });
    }
  }
  const all = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const on = (s: FoundSkill) => (settings.enabled === undefined || settings.enabled.includes(s.name)) && !(settings.disabled ?? []).includes(s.name);
  return { skills: all.filter(on), turnedOff: all.filter((s) => !on(s)), warnings, layers };
}

/** `<dir>/*\/SKILL.md`, sorted; a missing folder has none. */
function skillFilesIn(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() || e.isSymbolicLink())
    .map((e) => path.join(dir, e.name, SKILL_FILE_NAME))
    .filter((f) => fs.existsSync(f))
    .sort();
}

function readSkill(file: string): ReturnType<typeof parseSkillFile> {
  let real: string;
  let text: string;
  try {
    real = fs.realpathSync(file);
    const size = fs.statSync(real).size;
    if (size > MAX_SKILL_FILE_BYTES) return { warnings: [{ file, line: 1, message: `is ${size} bytes, more than ${MAX_SKILL_FILE_BYTES}; skipped: shorten it and move details to files beside it` }] };
    text = fs.readFileSync(real, 'utf8');
  } catch (error) {
    return { warnings: [{ file, line: 1, message: `cannot be read (${(error as Error).message.split('\n')[0]}); skipped` }] };
  }
  // The folder as the kernel names it: the read tool's extra roots are real paths.
  return parseSkillFile(real, text);
}
