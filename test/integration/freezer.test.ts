// Settling by freezing (docs/runtime-lifecycle.md, "Settling"): what happens to a finished sandbox
// that is frozen, killed and waiting for its thaw, when its host dies before the thaw.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freezerSupport } from '../../src/sandbox/index.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;
const noFreezer = freezerSupport().detail;
if (noFreezer !== undefined) console.log(`freezer tests skipped: ${noFreezer}`);
const skip = skipWithoutBwrap || noFreezer !== undefined;

function state(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[0];
  } catch {
    return undefined;
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.skipIf(skip)('a frozen sandbox whose host died', () => {
  it('stays frozen with nothing written, and the next host sweep kills it', async () => {
    const host = spawn(process.execPath, ['--import', register, join(root, 'test/fixtures/freezer-host.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    onTestFinished(() => {
      host.kill('SIGKILL');
    });
    let text = '';
    host.stdout.setEncoding('utf8');
    const line = await new Promise<string>((done, fail) => {
      host.stdout.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('\n')) done(text.split('\n')[0] as string);
      });
      host.once('exit', () => fail(new Error(`the host exited without a report: ${text}`)));
    });
    const report = JSON.parse(line) as { monitor: number; program: number; cwd: string; file: string; error?: unknown };
    onTestFinished(() => rmSync(report.cwd, { recursive: true, force: true }));
    expect(report.error).toBeUndefined();
    host.kill('SIGKILL');
    await new Promise((done) => host.once('exit', done));

    // The host is gone, the sandbox is still frozen (killed, not yet thawed): nothing runs, nothing is written.
    const atDeath = sizeOf(report.file);
    expect(atDeath).toBeGreaterThan(0);
    expect(state(report.program)).toBe('D');
    await pause(300);
    expect(sizeOf(report.file)).toBe(atDeath);
    expect(state(report.program)).toBe('D');

    // A new host's sweep of stale run state kills and thaws it; it dies without writing again.
    const sweep = spawnSync(
      process.execPath,
      ['--import', register, '--input-type=module', '-e', `const m = await import(${JSON.stringify(pathToFileURL(join(root, 'src/sandbox/index.ts')).href)}); await m.sweepStaleRunState();`],
      { stdio: 'inherit' },
    );
    expect(sweep.status).toBe(0);
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (state(report.program) !== undefined || state(report.monitor) !== undefined)) await pause(20);
    expect(state(report.program)).toBeUndefined();
    expect(state(report.monitor)).toBeUndefined();
    expect(sizeOf(report.file)).toBe(atDeath);
  }, 30_000);
});
