// Where `--preset <name|path>` comes from: a path (relative to the command's cwd), else
// `<workspace>/.ptc/presets/<name>.yml`, else `$PTC_HOME/presets/<name>.yml` (default ~/.ptc), else
// the presets shipped in the package (docs/presets.md, "Resolution"). This module only finds files;
// whether a workspace's file may load is src/trust's question (docs/presets.md, "Trust").

import { didYouMean } from '../did-you-mean.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { presetNameOf } from './preset-file.js';
import { ptcHome } from '../ptc-home.js';

export { ptcHome };

/** Where a preset was found. */
export type PresetOrigin = 'path' | 'workspace' | 'PTC_HOME' | 'shipped';

export interface PresetLocation {
  readonly name: string;
  /** Absolute path of the preset file. */
  readonly file: string;
  readonly origin: PresetOrigin;
}

export interface PresetSearch {
  /** The workspace (`--cwd`): its `.ptc/presets/` is searched. */
  readonly workspace: string;
  /** Base of a relative preset path: the command's own cwd; default `process.cwd()`. */
  readonly cwd?: string;
  /** Where `PTC_HOME` is read; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default `os.homedir()`. */
  readonly homedir?: string;
}

/** `presets/` at the package root: two levels above this module in src/presets and in dist/presets alike. */
export const SHIPPED_PRESETS_DIR = fileURLToPath(new URL('../../presets/', import.meta.url));

const PRESET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const EXTENSIONS = ['.yml', '.yaml'];

/** A `--preset` value is a path when it has a slash or a YAML extension. */
export function isPresetPath(value: string): boolean {
  return value.includes('/') || value.includes(path.sep) || /\.ya?ml$/i.test(value);
}

/** The directories searched for named presets, in order. */
export function presetDirectories(search: PresetSearch): { dir: string; origin: Exclude<PresetOrigin, 'path'> }[] {
  const workspace = path.join(search.workspace, '.ptc', 'presets');
  const home = path.join(ptcHome(search), 'presets');
  return [
    // Working in the home directory, `~/.ptc/presets` is the user's own, not a workspace's.
    ...(realOrSelf(workspace) === realOrSelf(home) ? [] : [{ dir: workspace, origin: 'workspace' as const }]),
    { dir: home, origin: 'PTC_HOME' },
    { dir: SHIPPED_PRESETS_DIR, origin: 'shipped' },
  ];
}

function realOrSelf(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** Resolves a preset name or path to its file; an unknown name is CONFIG listing what exists. */
export function resolvePreset(value: string, search: PresetSearch): PresetLocation {
  if (isPresetPath(value)) {
    const file = path.resolve(search.cwd ?? process.cwd(), value);
    if (!isFile(file)) throw new ConfigError(`Preset file ${file} does not exist; pass an existing .yml file or a preset name (ptc presets list).`);
    return { name: presetNameOf(file), file, origin: 'path' };
  }
  if (!PRESET_NAME.test(value)) {
    throw new ConfigError(`Invalid preset name ${JSON.stringify(value)}: use letters, digits, '-', '_' and '.', or a path to a .yml file.`);
  }
  const found = findNamedPreset(value, search, ['workspace', 'PTC_HOME', 'shipped']);
  if (found) return found;
  const known = [...new Set(listPresets(search).map((p) => p.name))];
  throw new ConfigError(
    `Unknown preset ${JSON.stringify(value)}; choose one of: ${known.join(', ')} (or pass a path to a preset file).${didYouMean(value, known)}`,
  );
}

/** The first preset file named `name` in the directories of `origins`, in search order. */
export function findNamedPreset(name: string, search: PresetSearch, origins: readonly PresetOrigin[]): PresetLocation | undefined {
  for (const { dir, origin } of presetDirectories(search)) {
    if (!origins.includes(origin)) continue;
    for (const ext of EXTENSIONS) {
      const file = path.join(dir, name + ext);
      if (isFile(file)) return { name, file, origin };
    }
  }
  return undefined;
}

/** Every preset that resolves by name here, in search order; a later one of the same name is shadowed. */
export function listPresets(search: PresetSearch): (PresetLocation & { readonly shadowed: boolean })[] {
  const seen = new Set<string>();
  const out: (PresetLocation & { shadowed: boolean })[] = [];
  for (const { dir, origin } of presetDirectories(search)) {
    let entries: string[];
    try {
      entries = fs.readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!EXTENSIONS.some((ext) => entry.endsWith(ext))) continue;
      const name = presetNameOf(entry);
      const file = path.join(dir, entry);
      if (!PRESET_NAME.test(name) || !isFile(file)) continue;
      out.push({ name, file, origin, shadowed: seen.has(name) });
      seen.add(name);
    }
  }
  return out;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
