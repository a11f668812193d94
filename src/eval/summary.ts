// summary.md and summary.svg of a run directory: per preset and per domain success rate, mean
// turns, tokens and time, and ptc against standard as ratios. docs/eval.md, "Results".

import fs from 'node:fs';
import path from 'node:path';
import { renderChart } from './chart.js';
import type { EvalSettings } from './run-dir.js';
import type { TaskResult } from './results.js';
import { SUMMARY_ANSWER_CHARS, SUMMARY_ERROR_CHARS } from './limits.js';

export interface Aggregate {
  readonly runs: number;
  readonly succeeded: number;
  readonly meanTurns: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly toolResultTokens: number;
  readonly toolCalls: number;
  readonly subCalls: number;
  readonly wallMs: number;
}

export function aggregate(results: readonly TaskResult[]): Aggregate {
  const sum = (f: (r: TaskResult) => number): number => results.reduce((n, r) => n + f(r), 0);
  return {
    runs: results.length,
    succeeded: results.filter((r) => r.success).length,
    meanTurns: results.length === 0 ? 0 : sum((r) => r.turns) / results.length,
    inputTokens: sum((r) => r.inputTokens),
    outputTokens: sum((r) => r.outputTokens),
    cachedInputTokens: sum((r) => r.cachedInputTokens),
    toolResultTokens: sum((r) => r.toolResultTokens),
    toolCalls: sum((r) => r.toolCalls),
    subCalls: sum((r) => r.subCalls),
    wallMs: sum((r) => r.wallMs),
  };
}

const pct = (a: Aggregate): string => (a.runs === 0 ? '–' : `${a.succeeded}/${a.runs} (${((100 * a.succeeded) / a.runs).toFixed(1)}%)`);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const ratio = (a: number, b: number): string => (b === 0 ? '–' : `${(a / b).toFixed(2)}×`);

/** The domains in the order the tasks come, with the runs of each. */
export function byDomain(results: readonly TaskResult[]): Map<string, TaskResult[]> {
  const map = new Map<string, TaskResult[]>();
  for (const r of results) map.set(r.domain, [...(map.get(r.domain) ?? []), r]);
  return map;
}

export function renderSummary(results: readonly TaskResult[], settings: EvalSettings & { model?: string }): string {
  const presets = [...new Set(results.map((r) => r.preset))];
  const of = (preset: string, rs: readonly TaskResult[] = results): TaskResult[] => rs.filter((r) => r.preset === preset);
  const lines: string[] = [];
  lines.push(`# M3ToolEval: ${settings.model ?? 'unknown model'}`, '');
  lines.push(
    `${settings.replay ? 'Replay of the reference solutions (no model): tokens counted with o200k_base' : 'Live run: tokens as the provider reported them'}; ` +
      `presets ${presets.join(', ')}; at most ${settings.maxSteps} model steps per task.`,
    '',
  );
  lines.push('| preset | success | mean turns | input tokens | output tokens | cached input | tool-result tokens | tool calls | sub-calls | time |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const preset of presets) {
    const a = aggregate(of(preset));
    lines.push(
      `| ${preset} | ${pct(a)} | ${a.meanTurns.toFixed(2)} | ${int(a.inputTokens)} | ${int(a.outputTokens)} | ${int(a.cachedInputTokens)} | ${int(a.toolResultTokens)} | ${int(a.toolCalls)} | ${int(a.subCalls)} | ${secs(a.wallMs)} |`,
    );
  }
  if (presets.includes('ptc') && presets.includes('standard')) {
    const p = aggregate(of('ptc'));
    const s = aggregate(of('standard'));
    lines.push('', '| ptc / standard | success | mean turns | input tokens | uncached input | output tokens | tool-result tokens | time |', '|---|---|---|---|---|---|---|---|');
    lines.push(
      `| ratio | ${ratio(p.succeeded, s.succeeded)} | ${ratio(p.meanTurns, s.meanTurns)} | ${ratio(p.inputTokens, s.inputTokens)} | ` +
        `${ratio(p.inputTokens - p.cachedInputTokens, s.inputTokens - s.cachedInputTokens)} | ${ratio(p.outputTokens, s.outputTokens)} | ` +
        `${ratio(p.toolResultTokens, s.toolResultTokens)} | ${ratio(p.wallMs, s.wallMs)} |`,
    );
  }
  lines.push('', '## Per domain', '', '| domain | preset | success | mean turns | total tokens | tool-result tokens | time |', '|---|---|---|---|---|---|---|');
  for (const [domain, rs] of byDomain(results)) {
    for (const preset of presets) {
      const a = aggregate(of(preset, rs));
      lines.push(`| ${domain} | ${preset} | ${pct(a)} | ${a.meanTurns.toFixed(2)} | ${int(a.inputTokens + a.outputTokens)} | ${int(a.toolResultTokens)} | ${secs(a.wallMs)} |`);
    }
  }
  lines.push('', '![Success and tokens per domain, ptc against standard](summary.svg)', '');
  const failures = results.filter((r) => !r.success);
  if (failures.length > 0) {
    lines.push('## Failed runs', '', '| task | preset | ended | answer | expected |', '|---|---|---|---|---|');
    for (const r of failures) {
      lines.push(`| ${r.task} | ${r.preset} | ${r.reason}${r.error ? `: ${cell(r.error).slice(0, SUMMARY_ERROR_CHARS)}` : ''} | ${cell(r.answer).slice(0, SUMMARY_ANSWER_CHARS)} | ${cell(r.expected)} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** Writes summary.md and summary.svg; returns the path of summary.md. */
export function writeSummary(dir: string, results: readonly TaskResult[], settings: EvalSettings & { model?: string }): string {
  const file = path.join(dir, 'summary.md');
  fs.writeFileSync(file, renderSummary(results, settings));
  fs.writeFileSync(path.join(dir, 'summary.svg'), renderChart(results));
  return file;
}
