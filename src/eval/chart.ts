// summary.svg: for each domain (and all tasks), bars of success rate and of total tokens, ptc next
// to standard, so the run reads at a glance. Plain SVG text, no library. docs/eval.md, "Results".

import type { TaskResult } from './results.js';

const COLORS: Readonly<Record<string, string>> = { ptc: '#2b6cb0', standard: '#dd6b20' };
const WIDTH = 820;
const PANEL_HEIGHT = 170;
const LEFT = 60;
const GROUP_GAP = 18;
/** Room above the tallest bar for its value label, below the panel title. */
const LABEL_ROOM = 18;

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** Short labels for the domains (the full names do not fit under a bar). */
const SHORT: Readonly<Record<string, string>> = {
  message_decoder: 'decoder',
  cryptobotanists_plant_dna_sequencer: 'dna',
  trade_calculator: 'trade',
  travel_itinerary_planning: 'travel',
  web_browsing: 'web',
  all: 'all tasks',
};

function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

export function renderChart(results: readonly TaskResult[]): string {
  const presets = [...new Set(results.map((r) => r.preset))].sort((a, b) => (a === 'ptc' ? -1 : b === 'ptc' ? 1 : a.localeCompare(b)));
  const groups = [...new Set(results.map((r) => r.domain)), 'all'];
  const pick = (group: string, preset: string): TaskResult[] => results.filter((r) => r.preset === preset && (group === 'all' || r.domain === group));
  const success = (rs: TaskResult[]): number => (rs.length === 0 ? 0 : rs.filter((r) => r.success).length / rs.length);
  const tokens = (rs: TaskResult[]): number => rs.reduce((n, r) => n + r.inputTokens + r.outputTokens, 0);
  const perGroupMaxTokens = groups.map((g) => Math.max(1, ...presets.map((p) => tokens(pick(g, p)))));

  const plotWidth = WIDTH - LEFT - 20;
  const groupWidth = plotWidth / groups.length;
  const barWidth = Math.max(8, (groupWidth - GROUP_GAP) / Math.max(1, presets.length));
  const out: string[] = [];
  const height = 40 + 2 * (PANEL_HEIGHT + 50) + 20;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`);
  presets.forEach((p, i) => {
    out.push(`<rect x="${LEFT + i * 110}" y="12" width="12" height="12" fill="${COLORS[p] ?? '#718096'}"/>`);
    out.push(`<text x="${LEFT + i * 110 + 18}" y="22">${escapeXml(p)}</text>`);
  });

  const panel = (top: number, title: string, value: (g: number, p: string) => number, label: (g: number, p: string) => string): void => {
    out.push(`<text x="${LEFT}" y="${top - 4}" font-weight="bold">${escapeXml(title)}</text>`);
    out.push(`<line x1="${LEFT}" y1="${top + PANEL_HEIGHT}" x2="${WIDTH - 20}" y2="${top + PANEL_HEIGHT}" stroke="#4a5568"/>`);
    groups.forEach((group, g) => {
      const x0 = LEFT + g * groupWidth + GROUP_GAP / 2;
      presets.forEach((preset, i) => {
        const h = Math.max(0, Math.min(1, value(g, preset))) * (PANEL_HEIGHT - LABEL_ROOM);
        const x = x0 + i * barWidth;
        out.push(`<rect x="${x.toFixed(1)}" y="${(top + PANEL_HEIGHT - h).toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[preset] ?? '#718096'}"/>`);
        out.push(`<text x="${(x + (barWidth - 2) / 2).toFixed(1)}" y="${(top + PANEL_HEIGHT - h - 3).toFixed(1)}" text-anchor="middle" font-size="9">${escapeXml(label(g, preset))}</text>`);
      });
      out.push(`<text x="${(x0 + (groupWidth - GROUP_GAP) / 2).toFixed(1)}" y="${top + PANEL_HEIGHT + 14}" text-anchor="middle">${escapeXml(SHORT[group] ?? group)}</text>`);
    });
  };
  const top1 = 50;
  panel(top1, 'Success rate per domain', (g, p) => success(pick(groups[g]!, p)), (g, p) => `${Math.round(100 * success(pick(groups[g]!, p)))}%`);
  const top2 = top1 + PANEL_HEIGHT + 50;
  panel(
    top2,
    'Tokens (input + output) per domain, scaled within each domain',
    (g, p) => tokens(pick(groups[g]!, p)) / perGroupMaxTokens[g]!,
    (g, p) => compact(tokens(pick(groups[g]!, p))),
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
