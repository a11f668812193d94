// Presets are plain data: which built-in tools an agent gets and how they are presented.
// (minimal and creator, and preset files, come with later issues.)

import { ConfigError } from '../errors.js';
import type { PresentationMode } from '../tools/tool-runtime.js';

export type BuiltinToolName = 'bash' | 'edit' | 'glob' | 'grep' | 'read' | 'write';

export interface PresetDefinition {
  readonly name: string;
  readonly description: string;
  /** How the tools reach the model: JSON-schema functions, or run_code plus the SDK. */
  readonly mode: PresentationMode;
  readonly tools: readonly BuiltinToolName[];
}

const CODING_TOOLS: readonly BuiltinToolName[] = ['bash', 'edit', 'glob', 'grep', 'read', 'write'];

export const PRESETS: Readonly<Record<string, PresetDefinition>> = Object.freeze({
  ptc: {
    name: 'ptc',
    description: 'The coding tools presented through run_code: the model writes one program per step.',
    mode: 'ptc',
    tools: CODING_TOOLS,
  },
  standard: {
    name: 'standard',
    description: 'The coding tools presented natively: one JSON-schema function call per tool call.',
    mode: 'native',
    tools: CODING_TOOLS,
  },
});

export const DEFAULT_PRESET = 'ptc';

/** The preset of that name; an unknown name is a CONFIG error listing the known ones. */
export function getPreset(name: string): PresetDefinition {
  const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
  if (!preset) {
    throw new ConfigError(`Unknown preset ${JSON.stringify(name)}; choose one of: ${Object.keys(PRESETS).join(', ')}.`);
  }
  return preset;
}
