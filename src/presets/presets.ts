// Presets are files of plugin rows (presets/*.yml, docs/presets.md). This module names the default,
// loads a preset by name or path, and describes an assembled one (what `harness.preset` holds).

import type { PluginState } from '../context/context.js';
import type { PresentationMode } from '../tools/tool-runtime.js';
import { readPresetFile, type PresetFile } from './preset-file.js';
import { resolvePreset, type PresetOrigin, type PresetSearch } from './resolve-preset.js';

export const DEFAULT_PRESET = 'ptc';

/** A preset file plus where it was found. */
export interface LoadedPreset extends PresetFile {
  readonly origin: PresetOrigin;
}

/** Resolves `--preset <name|path>` (docs/presets.md, "Resolution") and reads the file. */
export function loadPreset(value: string, search: PresetSearch): LoadedPreset {
  const location = resolvePreset(value, search);
  return { ...readPresetFile(location.file), name: location.name, origin: location.origin };
}

/** One row of an assembled preset. */
export interface PresetRowState {
  readonly index: number;
  /** As written in the row (a shipped name, a path or a package). */
  readonly name: string;
  /** The plugin's own name (differs from `name` for module rows). */
  readonly plugin: string;
  readonly state: PluginState;
  /** `file:line` of the row, or where an extra row came from (`--plugin`). */
  readonly at: string;
  readonly config?: unknown;
}

/** What a harness was assembled from, and what came out of it. */
export interface PresetDefinition {
  readonly name: string;
  readonly description: string;
  /** Where the preset file was found (`path` also for a preset object passed in). */
  readonly origin: PresetOrigin;
  readonly file: string;
  /** How the harness's scope presents its tools: JSON-schema functions, or run_code plus the SDK. */
  readonly mode: PresentationMode;
  /** The visible tools after assembly, sorted by name. */
  readonly tools: readonly string[];
  readonly rows: readonly PresetRowState[];
}
