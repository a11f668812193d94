// The front matter of the shipped skills, parsed at build time (shipped-front-matter.generated.ts,
// written by scripts/gen-remembered-parses.mjs): front matter whose text is byte-for-byte one of them
// (found by its SHA-256) is not parsed again, so `yaml` does not load on a start that reads only the
// shipped skills (docs/benchmarks.md, "CLI start-up"). Only the parse is remembered: skill-file.ts
// checks the values as for any skill. Any other text is parsed as always.

import { createHash } from 'node:crypto';
import type { FrontMatter } from './skill-file.js';
import { SHIPPED_FRONT_MATTER } from './shipped-front-matter.generated.js';

export function frontMatterDigest(yamlText: string): string {
  return createHash('sha256').update(yamlText, 'utf8').digest('hex');
}

/** The remembered parse of `yamlText`, as a copy the caller may keep, or undefined. */
export function rememberedFrontMatter(yamlText: string): FrontMatter | undefined {
  const digest = frontMatterDigest(yamlText);
  if (!Object.hasOwn(SHIPPED_FRONT_MATTER, digest)) return undefined;
  return structuredClone((SHIPPED_FRONT_MATTER as Readonly<Record<string, FrontMatter>>)[digest]!);
}
