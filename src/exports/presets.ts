// `ptc-harness/presets`: preset files (YAML rows of plugins), where they are found, and Creator
// mode's tools (docs/presets.md).

export { DEFAULT_PRESET, type LoadedPreset, type PresetDefinition, type PresetRowState } from '../presets/presets.js';
export { loadPreset } from '../trust/trusted-preset.js';
export { readPresetFile, parsePresetText, type PresetFile, type PresetRow } from '../presets/preset-file.js';
export { resolvePreset, listPresets, type PresetLocation, type PresetOrigin, type PresetSearch } from '../presets/resolve-preset.js';
export type { HarnessSettings } from '../harness-settings.js';
export { presetForLanguage } from '../presets/python-runtime-plugin.js';
export { creatorToolsPlugin, type CreatorToolsConfig } from '../presets/creator-tools-plugin.js';
export type { HarnessInspection } from '../presets/creator-inspect.js';
export type { PluginTryResult } from '../presets/creator-plugin-try.js';
export type { PresetWriteResult } from '../presets/creator-preset-write.js';
export type { PluginReload, ReloadReport } from '../presets/plugin-reload.js';
export { createPluginVersions, type PluginVersions } from '../presets/plugin-versions.js';
export type { ReloadRule } from '../presets/plugin-reload.js';
