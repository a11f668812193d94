// A long session under a small window (docs/compaction.md): 200 steps against the loopback scripted
// model, each reading a file of 5-50 KB, with a 32k-token window. Reports requests over the window
// (must be 0), prune-only compactions, summaries and the model calls they spent, and the tokens of
// each request (the meter's rule on the bytes the server received) as an SVG chart. Writes
// bench/LONG-SESSION.md and docs/images/long-session.svg:
//   node --import ./scripts/ts-register.mjs bench/long-session.ts [--steps 200] [--window 32768]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { estimateTextTokens } from '../src/agent/context-meter.js';
import { runAgent } from '../src/agent/loop.js';
import { createHarness } from '../src/harness.js';
import { DEFAULT_COMPACT_THRESHOLD } from '../src/limits.js';
import { resolveModel } from '../src/llm/index.js';
import { createSessionWriter, readSession, type SessionEvent } from '../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply } from '../test/fixtures/scripted-openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const steps = Number(arg('--steps') ?? '200');
const window = Number(arg('--window') ?? '32768');
const FILES = 40;

const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-bench-long-ws-')));
const sessionDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-bench-long-log-')));
// Sizes spread over 5-50 KB by a fixed sequence (the same every run).
for (let i = 0; i < FILES; i++) {
  const bytes = 5_000 + ((i * 7_919) % 45_001);
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    const line = `file ${i} line ${n}: ${'lorem ipsum dolor sit amet '.repeat(2)}`;
    lines.push(line);
    size += line.length + 1;
  }
  fs.writeFileSync(path.join(workspace, `f${i}.txt`), `${lines.join('\n')}\n`);
}

const script: ScriptedReply[] = [];
for (let i = 0; i < steps; i++) script.push(reply.toolCall('read', { path: `f${i % FILES}.txt` }));
script.push(reply.text('All read.'));
let summaryCalls = 0;
const server = await startScriptedOpenAIServer(script, {
  respond: (body) => (body.tools === undefined ? (summaryCalls++, reply.text(`Summary ${summaryCalls}: files were read in turn; their texts are in the files the stubs name.`)) : undefined),
});
const harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'auto' });
const writer = createSessionWriter({ dir: sessionDir, sessionId: 'long' });
const result = await runAgent({
  scope: harness.ctx,
  cwd: workspace,
  preset: 'standard',
  model: resolveModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} }),
  task: 'Read the files one by one.',
  sink: writer,
  sessionId: 'long',
  sessionDir,
  contextWindow: window,
  maxSteps: steps + 1,
});
writer.close();
await harness.dispose();
const requests = server.requests.filter((r) => (r.json as { tools?: unknown }).tools !== undefined);
await server.close();

const tokens = requests.map((r) => estimateTextTokens(r.body));
const { events } = readSession(writer.file);
const compactions = events.filter((e): e is Extract<SessionEvent, { type: 'context/compaction' }> => e.type === 'context/compaction');
const summaries = compactions.filter((c) => c.summary !== undefined);
const pruneOnly = compactions.length - summaries.length;
const failed = events.filter((e) => e.type === 'context/compaction-failed').length;
const over = tokens.filter((t) => t > window).length;
// Tokens added to the context over the run (each step's growth), per summary: how much of the window passes between two summaries.
let added = 0;
for (let i = 1; i < tokens.length; i++) added += Math.max(0, tokens[i]! - tokens[i - 1]!);
const windowsPerSummary = summaries.length === 0 ? Infinity : added / window / summaries.length;

const rows = [
  ['steps (model requests)', `${requests.length}`],
  ['outcome', result.reason],
  ['requests over the window', `${over}`],
  ['largest request', `${Math.max(...tokens)} tokens (${Math.round((Math.max(...tokens) / window) * 100)}% of ${window})`],
  ['compactions: prune only', `${pruneOnly}`],
  ['compactions: with a summary', `${summaries.length}`],
  ['model calls spent on summaries', `${summaryCalls}`],
  ['failed compactions', `${failed}`],
  ['context added per summary', Number.isFinite(windowsPerSummary) ? `${windowsPerSummary.toFixed(1)} windows` : 'no summary'],
];
const table = ['| measure | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');

// The chart: tokens of each request, the window and the threshold.
const W = 800;
const H = 300;
const pad = 40;
const x = (i: number) => pad + (i / Math.max(1, tokens.length - 1)) * (W - 2 * pad);
const y = (t: number) => H - pad - (t / (window * 1.1)) * (H - 2 * pad);
const line = tokens.map((t, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(t).toFixed(1)}`).join(' ');
const marks = summaries.map((c) => `<line x1="${x(c.step - 1).toFixed(1)}" x2="${x(c.step - 1).toFixed(1)}" y1="${pad}" y2="${H - pad}" stroke="#c60" stroke-dasharray="2,3"/>`).join('');
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="#fff"/>
<line x1="${pad}" x2="${W - pad}" y1="${y(window)}" y2="${y(window)}" stroke="#c00"/><text x="${W - pad}" y="${y(window) - 4}" text-anchor="end" fill="#c00">window ${window}</text>
<line x1="${pad}" x2="${W - pad}" y1="${y(window * DEFAULT_COMPACT_THRESHOLD)}" y2="${y(window * DEFAULT_COMPACT_THRESHOLD)}" stroke="#999" stroke-dasharray="4,3"/><text x="${W - pad}" y="${y(window * DEFAULT_COMPACT_THRESHOLD) - 4}" text-anchor="end" fill="#666">threshold ${DEFAULT_COMPACT_THRESHOLD * 100}%</text>
${marks}
<path d="${line}" fill="none" stroke="#06c" stroke-width="1.2"/>
<line x1="${pad}" x2="${W - pad}" y1="${H - pad}" y2="${H - pad}" stroke="#333"/><line x1="${pad}" x2="${pad}" y1="${pad}" y2="${H - pad}" stroke="#333"/>
<text x="${W / 2}" y="${H - 10}" text-anchor="middle">step (1 to ${tokens.length}); dashed orange: a summary</text>
<text x="12" y="${H / 2}" transform="rotate(-90 12 ${H / 2})" text-anchor="middle">tokens of the request (bytes / 4)</text>
</svg>
`;
fs.mkdirSync(path.join(root, 'docs/images'), { recursive: true });
fs.writeFileSync(path.join(root, 'docs/images/long-session.svg'), svg);
const md = `# A long session under a small window

\`node --import ./scripts/ts-register.mjs bench/long-session.ts --steps ${steps} --window ${window}\`: ${steps} steps of
\`read\` on files of 5-50 KB against the loopback scripted model (docs/compaction.md). Counts, not
times: the same every run.

${table}

![tokens per request](../docs/images/long-session.svg)
`;
fs.writeFileSync(path.join(root, 'bench/LONG-SESSION.md'), md);
process.stdout.write(`${table}\n`);
fs.rmSync(workspace, { recursive: true, force: true });
fs.rmSync(sessionDir, { recursive: true, force: true });
if (over > 0) process.exitCode = 1;
