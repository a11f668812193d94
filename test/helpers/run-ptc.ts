// The built `ptc` binary (dist/, built by the global setup) as a user runs it: its own process, a
// given workspace and environment, stdin written then closed, both streams collected.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PTC_BIN = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'), 'dist/cli/ptc.cjs');

export interface PtcRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runPtc(args: readonly string[], options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly input?: string }): Promise<PtcRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PTC_BIN, ...args], { cwd: options.cwd, env: { ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
