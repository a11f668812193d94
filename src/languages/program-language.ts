// Which language a program is in, from its file name or a `--lang` value, as the table of language
// packs says (src/languages/table.ts). The table holds the packs' words and SDK renderers but no
// runtime, so the CLI can ask before it loads anything heavy (`ptc exec`).

import type { PtcLanguage } from '../ptc-runtime/types.js';
import { DEFAULT_LANGUAGE, packOfFile, packOfFlag } from './table.js';

/** The program language a file's extension names (`.py` is Python); TypeScript for any other. */
export function programLanguageOf(file: string): PtcLanguage {
  return packOfFile(file)?.id ?? DEFAULT_LANGUAGE;
}

/** The language a `--lang` value names (`py`/`python`, `ts`/`typescript`, a registered pack's); undefined for anything else. */
export function parseProgramLanguage(value: string): PtcLanguage | undefined {
  return packOfFlag(value)?.id;
}

/** The language of `ptc exec`'s program: `--lang` when given, else the file's extension. */
export function execLanguageOf(file: string, lang: string | undefined): PtcLanguage {
  if (lang === undefined) return programLanguageOf(file);
  return parseProgramLanguage(lang) ?? DEFAULT_LANGUAGE;
}
