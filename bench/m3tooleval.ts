// The full M3ToolEval replay: all 82 tasks, ptc and standard interleaved, through the real agent
// loop, provider client, replay model on loopback, tools and runtime. Prints the summary table and
// writes it to bench/M3TOOLEVAL.md. Too long for `npm test`; run it with
//   node --import ./scripts/ts-register.mjs bench/m3tooleval.ts [--jobs N]
// Time is reported as a ratio of the two presentations measured in the same run (docs/eval.md).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runEval, DEFAULT_REPLAY_MAX_STEPS } from '../src/eval/runner.js';

const jobsFlag = process.argv.indexOf('--jobs');
const jobs = jobsFlag >= 0 ? Number(process.argv[jobsFlag + 1]) : 1;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-bench-m3-'));
const loadBefore = os.loadavg()[0]!;
const started = Date.now();
const outcome = await runEval({
  suite: 'm3tooleval',
  presets: ['ptc', 'standard'],
  replay: true,
  maxSteps: DEFAULT_REPLAY_MAX_STEPS,
  out,
  jobs,
  onProgress: (p) => {
    if (p.last) process.stderr.write(`${p.done}/${p.total} ${p.last.success ? 'ok' : 'FAIL'} ${p.last.preset} ${p.last.task}\n`);
  },
});
const seconds = (Date.now() - started) / 1000;
const loadAfter = os.loadavg()[0]!;
const summary = fs.readFileSync(outcome.summaryFile, 'utf8').replace(/^# .*\n/, '');
const header = [
  '# M3ToolEval replay (bench/m3tooleval.ts)',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ` +
    `load average ${loadBefore.toFixed(2)} before and ${loadAfter.toFixed(2)} after; --jobs ${jobs}; ${seconds.toFixed(0)} s in all. ` +
    'No model: the replay model plays the reference solutions (src/eval/m3tooleval/reference-solutions.ts); ptc sends each as one ' +
    'run_code program, standard makes one tool call per model step. Tokens are o200k_base counts of each request (messages and tool ' +
    'schemas) and reply; "tool-result tokens" counts each tool result once as it enters the context. Times are wall time on a shared ' +
    'machine: read them as the ratio in the same run, not as absolute figures.',
  '',
].join('\n');
const markdown = `${header}${summary}`;
const svgTarget = path.join(path.dirname(fileURLToPath(import.meta.url)), 'M3TOOLEVAL.svg');
fs.copyFileSync(path.join(outcome.dir, 'summary.svg'), svgTarget);
fs.writeFileSync(path.join(path.dirname(svgTarget), 'M3TOOLEVAL.md'), markdown.replace('](summary.svg)', '](M3TOOLEVAL.svg)'));
process.stdout.write(markdown);
process.stderr.write(`run directory: ${out}\n`);
