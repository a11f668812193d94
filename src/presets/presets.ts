// Presets are files of plugin rows (presets/*.yml, docs/presets.md). This module names the default,
// describes an assembled one (what `harness.preset` holds). Loading one by name goes through the trust
// rule (src/trust/trusted-preset.ts).

import type { PluginState } from '../context/context.js';
import type { PresentationMode } from '../tools/tool-runtime.js';
import type { PresetFile } from './preset-file.js';
import type { PresetOrigin } from './resolve-preset.js';
import type { ServiceProvider } from './service-rows.js';

export const DEFAULT_PRESET = 'ptc';

/** A preset file plus where it was found. */
export interface LoadedPreset extends PresetFile {
  readonly origin: PresetOrigin;
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
  /** Every service of the assembled container and the row that provides it (src/presets/service-rows.ts). */
  readonly services: readonly ServiceProvider[];
}
