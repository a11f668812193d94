// `ptc exec <file|->`: one program body against a preset's tools, no model (src/cli/commands.ts, runExecCommand).

import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { addPolicyOptions, readStdin, type CliIo } from '../command-options.js';
import { policyFromFlags, positiveInteger, type PolicyFlags } from '../flags.js';

export function register(program: Command, { print }: CliIo): void {
  addPolicyOptions(
    program
      .command('exec')
      .description("run a PTC program body against a preset's tools (no model needed)")
      .argument('<file>', 'file holding the program body, or - for standard input'),
  )
    .option('--max-parallel <n>', 'overlapping concurrency-safe sub-calls (default 10, 1 = serial)', positiveInteger('--max-parallel'))
    .addOption(new Option('--lang <lang>', 'the program language (default: py for a .py file, else ts)').choices(['ts', 'py']))
    .option('--json', 'print one JSON object on stdout and nothing else there')
    .action(async (file: string, o: PolicyFlags & { maxParallel?: number; lang?: 'ts' | 'py' }) => {
      // Read first, so a TypeScript program's type eraser loads on a worker while the commands load
      // (or its strip is remembered, strip-cache.ts).
      const ahead = await execAhead(file, o.lang);
      const [{ runExecCommand }, speculation] = await Promise.all([import('../commands.js'), import('../exec-speculation.js').then((m) => m.takeSpeculation())]);
      print(
        await runExecCommand({
          file,
          ...ahead,
          ...(speculation !== undefined ? { speculation } : {}),
          ...policyFromFlags(o),
          ...(o.maxParallel !== undefined ? { maxParallel: o.maxParallel } : {}),
          ...(o.lang !== undefined ? { lang: o.lang } : {}),
          stdin: readStdin,
          // Each log line reaches stderr as the program writes it; stdout keeps the value alone.
          writeLog: (line) => void process.stderr.write(`${line}\n`),
        }),
      );
    });
}

/**
 * The program read up front and, for TypeScript, its strip started on a worker thread
 * (stripProgramAhead in strip.ts): loading the eraser then overlaps loading the harness's modules.
 * A file that cannot be read is left to runExecCommand, which reads it again and says why.
 */
async function execAhead(file: string, lang: 'ts' | 'py' | undefined): Promise<{ source?: string; stripping?: Promise<void> }> {
  let source: string;
  if (file === '-') source = await readStdin();
  else {
    try {
      source = readFileSync(file, 'utf8');
    } catch {
      return {};
    }
  }
  const { execLanguageOf } = await import('../../languages/program-language.js');
  if (execLanguageOf(file, lang) !== 'typescript') return { source };
  const [{ stripProgramAhead, useStripMadeEarlier }, { readStrip, stripSlot, writeStrip }] = await Promise.all([
    import('../../languages/typescript/runtime/strip.js'),
    import('../strip-cache.js'),
  ]);
  // The same program as an earlier exec: its strip is remembered (strip-cache.ts), no eraser to load.
  const slot = stripSlot(source);
  const remembered = slot === undefined ? undefined : readStrip(slot);
  if (remembered !== undefined) {
    useStripMadeEarlier(source, remembered);
    return { source };
  }
  const stripping = stripProgramAhead(source).then((code) => {
    if (slot !== undefined && code !== undefined) writeStrip(slot, code);
  });
  return { source, stripping };
}
