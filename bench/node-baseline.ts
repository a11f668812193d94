// The baseline every start-up ratio of the bench divides by: the median wall time of `node -e 0`.

import { spawnSync } from 'node:child_process';
import { median } from './median.js';

/** Median of `samples` runs of `node -e 0`, after one unmeasured run. */
export function nodeBaselineMs(samples: number): number {
  // The same minimal environment the runtime gives its children (an inherited env can double start-up).
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
  spawnSync(process.execPath, ['-e', '0'], { env });
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  return median(times);
}
