// The guess `ptc exec` starts its child with (exec-speculation.ts) and the check that decides
// whether the program may run on it (exec-speculation-check.ts), with real harnesses and runtimes.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness } from '../harness.js';
import { createNodeRuntime } from '../languages/typescript/runtime/index.js';
import { resolveNodeRuntimeOptions } from '../languages/typescript/runtime/options.js';
import { intendedRuntime, openExecHarness } from './exec-speculation-check.js';
import { PREDICTION_FORMAT, predictionSlot, readPrediction, writePrediction, type PredictedRequest, type Speculation } from './exec-speculation.js';

let dir: string;
beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-exec-speculation-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = () => ({ PTC_HOME: path.join(dir, 'home') });
const ONE_CHILD = { size: 1, refill: false } as const;

describe('the remembered guess', () => {
  it('is kept per command line in $PTC_HOME/cache/exec, and off with PTC_NO_OUTPUT_CACHE=1', () => {
    const slot = predictionSlot(['exec', 'a.ts'], env());
    expect(slot?.file.startsWith(path.join(dir, 'home', 'cache', 'exec') + path.sep)).toBe(true);
    expect(predictionSlot(['exec', 'b.ts'], env())?.key).not.toBe(slot?.key);
    expect(predictionSlot(['exec', 'a.ts'], { ...env(), PTC_NO_OUTPUT_CACHE: '1' })).toBeUndefined();
    expect(predictionSlot(['tools'], env())).toBeUndefined();
  });

  it('reads back what was written, and treats a missing, corrupt, foreign or misshapen file as no guess', () => {
    const slot = predictionSlot(['exec', 'a.ts'], env())!;
    expect(readPrediction(slot)).toBeUndefined();
    const request: PredictedRequest = { cwd: dir, policy: { allowRead: [], allowWrite: [], network: false, protect: [] } };
    writePrediction(slot, { sandbox: 'off' }, request);
    expect(readPrediction(slot)).toMatchObject({ format: PREDICTION_FORMAT, runtime: { sandbox: 'off' }, request });
    expect((fs.statSync(path.dirname(slot.file)).mode & 0o777).toString(8)).toBe('700');

    const written = JSON.parse(fs.readFileSync(slot.file, 'utf8')) as Record<string, unknown>;
    for (const bad of ['{"format":', 'null', JSON.stringify({ ...written, key: 'another command' }), JSON.stringify({ ...written, format: 0 }), JSON.stringify({ ...written, request: { cwd: dir, policy: { allowRead: '/' } } })]) {
      fs.writeFileSync(slot.file, bad);
      expect(readPrediction(slot)).toBeUndefined();
    }
  });
});

/** A guessed runtime, started like exec-speculation.ts starts one: resolve() primes its child. */
async function speculation(runtimeOptions: Parameters<typeof createNodeRuntime>[0], request: PredictedRequest): Promise<Speculation> {
  const runtime = createNodeRuntime(runtimeOptions);
  await runtime.resolve({ program: '', cwd: request.cwd, policy: request.policy });
  const slot = predictionSlot(['exec', 'a.ts'], env())!;
  return { slot, prediction: { format: PREDICTION_FORMAT, key: slot.key, runtime: runtimeOptions!, request }, runtime };
}

async function isClosed(runtime: Speculation['runtime']): Promise<boolean> {
  return runtime!.resolve({ program: '', cwd: dir }).then(
    () => false,
    (error: Error) => /closed/.test(error.message),
  );
}

const policyOf = (cwd: string, network = false): PredictedRequest => ({ cwd, policy: { allowRead: [], allowWrite: [], network, protect: [] } });

describe('openExecHarness', () => {
  it("knows the options the node-runtime row makes its runtime with (the shipped preset, and a row's own config)", async () => {
    const tuned = path.join(dir, 'tuned.yml');
    fs.writeFileSync(
      tuned,
      'description: a node-runtime row with its own config\nplugins:\n  - name: builtin-tools\n    config: { tools: [read] }\n' +
        '  - name: node-runtime\n    config: { limits: { memoryMb: 96 }, timeout: { defaultMs: 4000 }, processes: false }\n  - name: tool-presentation\n    config: { mode: ptc }\n',
    );
    for (const preset of [undefined, tuned]) {
      const harness = await createHarness({ cwd: dir, sandbox: 'off', timeoutMs: 9000, runtimePool: ONE_CHILD, ...(preset ? { preset } : {}), env: env() });
      try {
        const made = (harness.runtime as ReturnType<typeof createNodeRuntime>).config;
        expect(resolveNodeRuntimeOptions(intendedRuntime(harness))).toEqual(made);
      } finally {
        await harness.dispose();
      }
    }
  });

  it('runs on the guessed child when the harness asks for exactly its options and policy', async () => {
    const guess = await speculation({ sandbox: 'off', pool: ONE_CHILD }, policyOf(dir));
    const opened = await openExecHarness({ cwd: dir, sandbox: 'off', runtimePool: ONE_CHILD, env: env() }, guess);
    try {
      expect(opened.speculated).toBe(true);
      expect(opened.scope.get('ptcRuntime')).toBe(guess.runtime);
    } finally {
      await opened.dispose();
    }
    expect(await isClosed(guess.runtime)).toBe(true);
  });

  it('ends a guessed child whose runtime options differ, and runs on a runtime of its own', async () => {
    const guess = await speculation({ sandbox: 'off', pool: ONE_CHILD, limits: { memoryMb: 1024 } }, policyOf(dir));
    const opened = await openExecHarness({ cwd: dir, sandbox: 'off', runtimePool: ONE_CHILD, env: env() }, guess);
    try {
      expect(opened.speculated).toBe(false);
      expect(opened.scope.get('ptcRuntime')).not.toBe(guess.runtime);
      expect(await isClosed(guess.runtime)).toBe(true);
      // The next run's guess is what this one asked for.
      opened.remember();
      expect(readPrediction(guess.slot)?.runtime).toEqual({ sandbox: 'off', pool: ONE_CHILD });
    } finally {
      await opened.dispose();
    }
  });

  it('ends a guessed child whose policy is wider than the final one (network on, a stale guess)', async () => {
    const guess = await speculation({ sandbox: 'off', pool: ONE_CHILD }, policyOf(dir, true));
    const opened = await openExecHarness({ cwd: dir, sandbox: 'off', runtimePool: ONE_CHILD, env: env() }, guess);
    try {
      expect(opened.speculated).toBe(false);
      expect(await isClosed(guess.runtime)).toBe(true);
      opened.remember();
      expect(readPrediction(guess.slot)?.request.policy.network).toBe(false);
    } finally {
      await opened.dispose();
    }
  });

  it('ends the guessed child when the harness cannot be built, and reports the error as without a guess', async () => {
    const guess = await speculation({ sandbox: 'off', pool: ONE_CHILD }, policyOf(dir));
    await expect(openExecHarness({ cwd: dir, sandbox: 'off', runtimePool: ONE_CHILD, preset: 'no-such-preset', env: env() }, guess)).rejects.toMatchObject({ code: 'CONFIG' });
    expect(await isClosed(guess.runtime)).toBe(true);
  });
});
