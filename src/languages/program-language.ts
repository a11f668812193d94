// Which language a program is in, from its file name or a `--lang` value. Kept free of imports so
// the CLI can decide it before it loads anything heavy (src/cli/main.ts, `ptc exec`).

import type { PtcLanguage } from '../ptc-runtime/types.js';

/** The program language a file's extension names: `.py` is Python, anything else TypeScript. */
export function programLanguageOf(file: string): PtcLanguage {
  return /\.py$/i.test(file) ? 'python' : 'typescript';
}

/** `--lang` values: `py`/`python` and `ts`/`typescript`; undefined for anything else. */
export function parseProgramLanguage(value: string): PtcLanguage | undefined {
  const lower = value.toLowerCase();
  if (lower === 'py' || lower === 'python') return 'python';
  if (lower === 'ts' || lower === 'typescript') return 'typescript';
  return undefined;
}

/** The language of `ptc exec`'s program: `--lang` when given, else the file's extension. */
export function execLanguageOf(file: string, lang: 'ts' | 'py' | undefined): PtcLanguage {
  if (lang === undefined) return programLanguageOf(file);
  return lang === 'py' ? 'python' : 'typescript';
}
