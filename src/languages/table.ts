// The table of program languages: one row per pack. The core finds a language only here: by the
// runtime's `language` (prompt, SDK, run_code), by a file's extension (`ptc exec file.py`, workflow
// files) or by a `--lang` value. A pack registered at run time (registerLanguagePack, e.g. a test's
// or a plugin's) joins the same table.

import { ConfigError } from '../errors.js';
import type { LanguagePack } from './language-pack.js';
import { pythonPack } from './python/pack.js';
import { typescriptPack } from './typescript/pack.js';

/** The shipped languages, in the order their names are listed; TypeScript is the default. */
const SHIPPED: readonly LanguagePack[] = [typescriptPack, pythonPack];

const packs = new Map<string, LanguagePack>(SHIPPED.map((pack) => [pack.id, pack]));

/** The language of a runtime that names none, and of a file whose extension no pack claims. */
export const DEFAULT_LANGUAGE = typescriptPack.id;

/**
 * Adds a pack to the table. Its id, extensions and `--lang` values must not be taken by another
 * pack (CONFIG otherwise). Returns a function that removes it again.
 */
export function registerLanguagePack(pack: LanguagePack): () => void {
  for (const other of packs.values()) {
    const clash = clashOf(pack, other);
    if (clash !== undefined) {
      throw new ConfigError(`language pack ${JSON.stringify(pack.id)}: ${clash} is already the ${other.name} pack's; choose another.`);
    }
  }
  packs.set(pack.id, pack);
  return () => {
    if (packs.get(pack.id) === pack) packs.delete(pack.id);
  };
}

/** What `pack` would take from `other`: its id, an extension or a `--lang` value; undefined when nothing. */
function clashOf(pack: LanguagePack, other: LanguagePack): string | undefined {
  if (other.id === pack.id) return `the id ${JSON.stringify(pack.id)}`;
  const extension = pack.extensions.find((e) => other.extensions.includes(e.toLowerCase()));
  if (extension !== undefined) return `the extension ${extension}`;
  const flag = pack.flags.find((f) => other.flags.includes(f.toLowerCase()));
  return flag === undefined ? undefined : `the --lang value ${flag}`;
}

/** The pack of a runtime's `language`, or undefined when no pack has that id. */
export function languagePack(id: unknown): LanguagePack | undefined {
  return typeof id === 'string' ? packs.get(id) : undefined;
}

/** The pack of `id`, the TypeScript pack when there is none (a runtime that names no known language). */
export function languagePackOr(id: unknown): LanguagePack {
  return languagePack(id) ?? typescriptPack;
}

/** Every pack, shipped first, then registered ones in the order they came. */
export function languagePacks(): readonly LanguagePack[] {
  return [...packs.values()];
}

/** The pack whose extension `file` has (case-insensitive), or undefined. */
export function packOfFile(file: string): LanguagePack | undefined {
  const lower = file.toLowerCase();
  return languagePacks().find((pack) => pack.extensions.some((ext) => lower.endsWith(ext)));
}

/** The pack a `--lang` value names (case-insensitive), or undefined. */
export function packOfFlag(value: string): LanguagePack | undefined {
  const lower = value.toLowerCase();
  return languagePacks().find((pack) => pack.flags.includes(lower));
}
