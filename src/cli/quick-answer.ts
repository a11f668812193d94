// What `ptc` can answer before commander or any command module loads: `--version` and `--help`
// (fast-start.ts), and `ptc tools` / `ptc sdk` from the output cache when nothing they came from
// changed (output-cache.ts). Shared by the bin (src/cli/start.ts) and runCli (src/cli/run-cli.ts);
// each writes the answer its own way (docs/benchmarks.md, "CLI start-up").

import tty from 'node:tty';
import { fastAnswer } from './fast-start.js';
import type { OutputCacheSlot } from './output-cache.js';

export type QuickAnswer =
  /** Print `stdout` and exit with `exitCode`: nothing else runs. */
  | { readonly kind: 'answer'; readonly stdout: string; readonly exitCode: number }
  /** Run `args` through commander; `slot` is where a cached command records its output. */
  | { readonly kind: 'run'; readonly args: readonly string[]; readonly slot?: OutputCacheSlot };

/** The quick answer to `argv` (the arguments after `ptc`), or what to run instead. */
export async function quickAnswer(argv: readonly string[]): Promise<QuickAnswer> {
  // `ptc` alone on a terminal is a conversation. tty.isatty, not process.stdin.isTTY: making the
  // stream objects costs more than the rest of a quick answer.
  const args = argv.length === 0 && tty.isatty(0) && tty.isatty(1) ? ['chat'] : [...argv];
  const isTTY = tty.isatty(1);
  const fast = fastAnswer(args, { isTTY, ...(isTTY ? { columns: process.stdout.columns } : {}) });
  if (fast !== undefined) return { kind: 'answer', stdout: fast, exitCode: 0 };
  if (args[0] !== 'tools' && args[0] !== 'sdk') return { kind: 'run', args };
  const cache = await import('./output-cache.js');
  const slot = cache.outputCacheSlot(args);
  const cached = slot === undefined ? undefined : cache.readCachedOutput(slot);
  if (cached !== undefined) return { kind: 'answer', ...cached };
  return { kind: 'run', args, ...(slot !== undefined ? { slot } : {}) };
}
