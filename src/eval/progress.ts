// The progress line of `ptc eval` on a terminal: a bar, runs done, successes so far, ETA.

import type { EvalProgress } from './run-dir.js';

const BAR_WIDTH = 24;

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** One line (no newline) describing where the run is. */
export function progressLine(p: EvalProgress, now = Date.now()): string {
  const filled = p.total === 0 ? BAR_WIDTH : Math.round((BAR_WIDTH * p.done) / p.total);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
  const elapsed = now - p.startedAt;
  const ranHere = p.done - (p.initial ?? 0);
  const eta = ranHere > 0 && p.done < p.total ? ` · ETA ${duration((elapsed / ranHere) * (p.total - p.done))}` : '';
  const last = p.last ? ` · ${p.last.success ? 'ok' : 'FAIL'} ${p.last.preset} ${p.last.task}` : '';
  return `[${bar}] ${p.done}/${p.total} · success ${p.succeeded}/${p.done}${eta}${last}`;
}
