// Settling by freezing (docs/runtime-lifecycle.md, "Settling"): what happens to a finished sandbox
// that is frozen, killed and waiting for its thaw, when its host dies before the thaw.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createNodeRuntime } from '../../src/languages/typescript/runtime/index.js';
import type { PhaseTrace } from '../../src/languages/typescript/runtime/trace.js';
import { freezerSupport } from '../../src/sandbox/index.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';
import { sizeOf } from '../helpers/file-size.js';
import { statFields } from '../helpers/process-state.js';
import { waitUntil } from '../helpers/wait-until.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;
const noFreezer = freezerSupport().detail;
if (noFreezer !== undefined) console.log(`freezer tests skipped: ${noFreezer}`);
const skip = skipWithoutBwrap || noFreezer !== undefined;

/** The process's state letter, or undefined once it is gone. */
const state = (pid: number): string | undefined => statFields(pid)?.[0];

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.skipIf(skip)('a frozen sandbox whose host died', () => {
  it('stays frozen with nothing written, and the next host sweep kills it', async () => {
    // A TMPDIR of its own: host-private state lives under it (src/sandbox/private-dir.ts), so only
    // this test's sweep sees the dead host's run, not the sweep of another host the suite starts.
    const tmp = mkdtempSync(join(tmpdir(), 'ptc-freezer-tmp-'));
    onTestFinished(() => rmSync(tmp, { recursive: true, force: true }));
    const env = { ...process.env, TMPDIR: tmp };
    const host = spawn(process.execPath, ['--import', register, join(root, 'test/fixtures/freezer-host.mjs')], { stdio: ['ignore', 'pipe', 'inherit'], env });
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
    // A freeze slower than FREEZE_WAIT_MS (a loaded machine) falls back to killing outright: then
    // there is nothing frozen to leave behind, and only "nothing written after" is checked.
    const frozen = state(report.program) === 'D';
    if (!frozen) console.log('the freeze fell back to the namespace rule in this run; the frozen-leftover checks are skipped');
    host.kill('SIGKILL');
    await new Promise((done) => host.once('exit', done));

    // The host is gone, the sandbox is still frozen (killed, not yet thawed): nothing runs, nothing is written.
    const atDeath = sizeOf(report.file);
    expect(atDeath).toBeGreaterThan(0);
    if (frozen) expect(state(report.program)).toBe('D');
    await pause(300);
    expect(sizeOf(report.file)).toBe(atDeath);
    if (frozen) expect(state(report.program)).toBe('D');

    // A new host's sweep of stale run state kills and thaws it; it dies without writing again.
    const sweep = spawnSync(
      process.execPath,
      ['--import', register, '--input-type=module', '-e', `const m = await import(${JSON.stringify(pathToFileURL(join(root, 'src/sandbox/index.ts')).href)}); await m.sweepStaleRunState();`],
      { stdio: 'inherit', env },
    );
    expect(sweep.status).toBe(0);
    await waitUntil('the swept sandbox to die', () => state(report.program) === undefined && state(report.monitor) === undefined, 5_000);
    expect(state(report.program)).toBeUndefined();
    expect(state(report.monitor)).toBeUndefined();
    expect(sizeOf(report.file)).toBe(atDeath);
  }, 30_000);
});

describe.skipIf(skip)('settling by freezing, and when it steps aside', () => {
  it('a warm run settles frozen; a sandbox holding a process the group does not list (a zombie) settles by the namespace rule', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ptc-freezer-'));
    const traces: PhaseTrace[] = [];
    const rt = createNodeRuntime({ onPhases: (trace) => traces.push(trace) });
    onTestFinished(async () => {
      await rt.close();
      rmSync(cwd, { recursive: true, force: true });
    });
    for (let i = 0; i < 3; i++) expect((await rt.run(await rt.resolve({ program: 'return 1', cwd }))).error).toBeUndefined();
    await rt.close();
    // Frozen as a rule (a freeze slower than FREEZE_WAIT_MS on a loaded machine falls back).
    expect(traces.filter((trace) => trace.at.take !== undefined).map((trace) => trace.settle)).toContain('frozen');
    traces.length = 0;
    // The shell forks `sleep 0`, then becomes `sleep 5` by exec and never reaps it: a zombie, which the
    // namespace lists and the freezer group does not.
    const withZombie = `
      const { spawn } = require('node:child_process');
      spawn('sh', ['-c', 'sleep 0 & exec sleep 5'], { stdio: 'ignore' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      return 1;`;
    const rt2 = createNodeRuntime({ onPhases: (trace) => traces.push(trace) });
    onTestFinished(() => rt2.close());
    const result = await rt2.run(await rt2.resolve({ program: withZombie, cwd }));
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    await rt2.close();
    const settle = traces.filter((trace) => trace.at.take !== undefined).at(-1)?.settle;
    expect(settle === 'fast' || settle === 'wait', `settled ${settle}`).toBe(true);
  }, 30_000);
});
