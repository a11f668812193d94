// Answers that need neither commander nor any command module: `ptc --version` from package.json,
// and `ptc [command...] --help` from the text precomputed at build time (dist/cli/help.json,
// src/cli/help-text.ts). A missing or stale help file, or a terminal whose width is not the one
// the text was made for, returns undefined and commander answers as before
// (docs/benchmarks.md, "CLI start-up").

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRECOMPUTED_HELP_SLACK_MS } from './limits.js';

/** What dist/cli/help.json holds. */
export interface HelpFile {
  /** helpStamp() of the build the texts were made from. */
  readonly stamp: string;
  readonly width: number;
  readonly texts: Readonly<Record<string, string>>;
}

/**
 * The built CLI's directory (dist/cli), also from the bin bundled into dist/cli/ptc.cjs: in a
 * bundle, import.meta.url is the bundle's, so only modules directly in dist/cli may use it
 * (scripts/bundle-bin.mjs checks). An exec server's name is made from it (exec-server/paths.ts).
 */
export const CLI_DIR = path.dirname(fileURLToPath(import.meta.url));
const HELP_FILE_NAME = 'help.json';
export const HELP_FILE = path.join(CLI_DIR, HELP_FILE_NAME);

/** The modules of the built CLI: every .js under dist/cli, and dist/limits.js. */
function builtModules(cliDir: string): { rel: string; size: number; mtimeMs: number }[] {
  const entries = fs.readdirSync(cliDir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => path.join(e.parentPath, e.name));
  return [...files.sort(), path.join(cliDir, '..', 'limits.js')].map((file) => {
    const rel = path.relative(cliDir, file);
    try {
      const s = fs.statSync(file);
      return { rel, size: s.size, mtimeMs: s.mtimeMs };
    } catch {
      return { rel, size: -1, mtimeMs: 0 };
    }
  });
}

/**
 * The identity of this copy of the built CLI, for the output cache (output-cache.ts): size and
 * modification time of a few of its modules and of package.json. `tsc` rewrites every module of
 * dist/ on each build, so these change with any build; an installed package keeps the times of its
 * install. A few stats, not the whole tree: this is on the path of every cached answer.
 */
export function buildStamp(cliDir: string = CLI_DIR): string {
  const files = ['cli/main.js', 'cli/program.js', 'cli/commands.js', 'harness.js', 'limits.js', '../package.json'];
  return files
    .map((rel) => {
      try {
        const s = fs.statSync(path.join(cliDir, '..', rel));
        return `${rel}:${s.size}:${s.mtimeMs}`;
      } catch {
        return `${rel}:missing`;
      }
    })
    .join('\n');
}

/**
 * What a help file is checked against: the modules' names and sizes (the same in the tree that
 * built it and in a package installed from it, whose times are the install's).
 */
export function helpStamp(cliDir: string = CLI_DIR): string {
  return builtModules(cliDir)
    .map((m) => `${m.rel}:${m.size}`)
    .join('\n');
}

/**
 * Whether the help file was made from the modules there now: the same names and sizes, and none
 * written more than PRECOMPUTED_HELP_SLACK_MS after it (a `tsc` without the help step; an install
 * writes them all within moments, in no set order).
 */
function helpIsCurrent(help: HelpFile, file: string, cliDir: string): boolean {
  const modules = builtModules(cliDir);
  if (help.stamp !== modules.map((m) => `${m.rel}:${m.size}`).join('\n')) return false;
  let madeAt: number;
  try {
    madeAt = fs.statSync(file).mtimeMs;
  } catch {
    return false;
  }
  return modules.every((m) => m.mtimeMs <= madeAt + PRECOMPUTED_HELP_SLACK_MS);
}

/** The text to print for `args`, or undefined when commander must answer. */
export function fastAnswer(
  args: readonly string[],
  stdout: { readonly isTTY?: boolean; readonly columns?: number },
  /** The built CLI's directory (tests: a copy); its help.json and stamp are read from there. */
  cliDir: string = CLI_DIR,
): string | undefined {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) return `${packageVersionOf(path.join(cliDir, '../../package.json'))}\n`;
  const key = helpKey(args);
  if (key === undefined) return undefined;
  const file = path.join(cliDir, HELP_FILE_NAME);
  const help = readHelpFile(file);
  if (help === undefined) return undefined;
  // commander wraps to the terminal's width (and to 80 when stdout is not a terminal).
  const width = stdout.isTTY ? stdout.columns : undefined;
  if ((width ?? help.width) !== help.width) return undefined;
  const text = help.texts[key];
  if (text === undefined || !helpIsCurrent(help, file, cliDir)) return undefined;
  return text;
}

/** 'sessions list' for `sessions list --help` or `help sessions list`; undefined for anything else. */
function helpKey(args: readonly string[]): string | undefined {
  const last = args.at(-1);
  if (last === '--help' || last === '-h') return commandWords(args.slice(0, -1));
  if (args[0] === 'help') return commandWords(args.slice(1));
  return undefined;
}

function commandWords(words: readonly string[]): string | undefined {
  return words.every((w) => /^[a-z][a-z-]*$/.test(w)) ? words.join(' ') : undefined;
}

export function readHelpFile(file: string): HelpFile | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<HelpFile>;
    if (typeof parsed.stamp !== 'string' || typeof parsed.width !== 'number' || typeof parsed.texts !== 'object' || parsed.texts === null) return undefined;
    return parsed as HelpFile;
  } catch {
    return undefined;
  }
}

function packageVersionOf(file: string): string {
  try {
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
