// The YAML parses of the shipped presets, made at build time (shipped-parses.generated.ts, written
// by scripts/gen-remembered-parses.mjs): a preset file whose text is byte-for-byte one of them (found
// by its SHA-256) is not parsed again, so `yaml` does not load on a start that reads only shipped
// presets (docs/benchmarks.md, "CLI start-up"). Only the parse is remembered: preset-file.ts checks
// the data against the preset schema as for any file, and trust and row checks are unchanged. Any
// other text, an edited shipped file included, is parsed as always.

import { createHash } from 'node:crypto';
import { SHIPPED_PRESET_PARSES } from './shipped-parses.generated.js';

export interface RememberedParse {
  /** What the YAML stands for (yaml's toJS()). */
  readonly data: unknown;
  /** The line of each row of `plugins`, in order. */
  readonly rowLines: readonly number[];
}

export function presetTextDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The remembered parse of `text`, as a copy the caller may keep, or undefined. */
export function rememberedPresetParse(text: string): RememberedParse | undefined {
  const digest = presetTextDigest(text);
  if (!Object.hasOwn(SHIPPED_PRESET_PARSES, digest)) return undefined;
  const known: RememberedParse = (SHIPPED_PRESET_PARSES as Readonly<Record<string, RememberedParse>>)[digest]!;
  return structuredClone(known);
}
