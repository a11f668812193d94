// The presets the UI's preset field offers (docs/ui.md): those that resolve in the workspace, shadowed
// ones and an untrusted workspace's left out, each with its description.

import { readPresetFile } from '../presets/preset-file.js';
import { listPresetsWithTrust } from '../trust/trusted-preset.js';

export interface PresetChoice {
  readonly name: string;
  readonly origin: string;
  readonly description: string;
}

export function presetChoices(workspace: string, env: Readonly<Record<string, string | undefined>>, trustWorkspace: boolean): PresetChoice[] {
  return listPresetsWithTrust({ workspace, env }, trustWorkspace ? { trustWorkspace: true } : {})
    .presets.filter((p) => !p.shadowed && !p.untrusted)
    .map((p) => {
      let description: string;
      try {
        description = readPresetFile(p.file).description;
      } catch (error) {
        description = `(invalid: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]})`;
      }
      return { name: p.name, origin: p.origin, description };
    });
}
