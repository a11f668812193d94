// `ptc exec`'s sandboxed child, started at the top of the command with the runtime options and
// policy of the last exec with the same command line (docs/benchmarks.md, "CLI start-up"), so the
// child boots on another core while the harness loads instead of after it.
//
// A guess, never trusted: the child runs nothing but its bootstrap until a program is sent, and
// exec-speculation-check.ts sends one only when the harness, once built from the config files,
// presets, trust and flags as always, asks for exactly the runtime options and policy the child was
// started with. Any difference ends the child and the run starts its own, as it would without this
// file. The remembered guesses live in `$PTC_HOME/cache/exec` (mode 0700) and only ever decide what
// starts early; a corrupt or foreign file is no guess. PTC_NO_OUTPUT_CACHE=1 turns it off, as it
// turns off the output cache. This module loads only the Node runtime (which the harness loads
// anyway); the check, which needs the preset's modules, is exec-speculation-check.ts.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PtcRuntime, RunRequest } from '../ptc-runtime/types.js';
import type { NodeRuntimeConfig, NodeRuntimeOptions } from '../languages/typescript/runtime/options.js';
import { ptcHome } from '../ptc-home.js';
import { buildStamp } from './fast-start.js';
import { EXEC_PREDICTION_MAX_ENTRIES, EXEC_PREDICTION_MAX_FILE_BYTES } from './limits.js';
import { pruneCacheDir, writeCacheFile } from './cache-files.js';
import { cacheFileName } from './output-cache.js';

export const PREDICTION_FORMAT = 1;

/** The policy half of the run request primeChild makes (ptcTransportConfig). */
export interface PredictedRequest {
  readonly cwd: string;
  readonly policy: { readonly allowRead: readonly string[]; readonly allowWrite: readonly string[]; readonly network: boolean; readonly protect: readonly string[] };
}

/** What the last exec of a command line asked the runtime for. */
export interface ExecPrediction {
  readonly format: number;
  readonly key: string;
  /** The options the node-runtime row made its runtime with (processRuntimeOptions). */
  readonly runtime: NodeRuntimeOptions;
  readonly request: PredictedRequest;
}

export interface PredictionSlot {
  readonly file: string;
  readonly key: string;
}

/** A child started on a guess, and the runtime that holds it. */
export interface Speculation {
  readonly slot: PredictionSlot;
  /** The guess the child was started with, when there was one. */
  readonly prediction?: ExecPrediction;
  /** The runtime holding the child (its pool of one), when one was started. */
  readonly runtime?: PtcRuntime & { readonly config: NodeRuntimeConfig };
}

type Env = Readonly<Record<string, string | undefined>>;

let pending: Promise<Speculation | undefined> | undefined;

/** Starts the guessed child for `args` (the whole command line, `exec ...`) once per process. */
export function speculateExec(args: readonly string[], env: Env = process.env): void {
  pending ??= startSpeculation(args, env).catch(() => undefined);
}

/** The speculation speculateExec() started, handed over once (the exec action takes it). */
export function takeSpeculation(): Promise<Speculation | undefined> {
  const taken = pending ?? Promise.resolve(undefined);
  pending = Promise.resolve(undefined);
  return taken;
}

/**
 * Drops a speculation nobody took (its child is closed), so the next speculateExec() starts afresh:
 * the exec server's runners (docs/exec-server.md) run one command line after another in a process.
 */
export async function resetSpeculation(): Promise<void> {
  const left = pending;
  pending = undefined;
  const speculation = await left;
  await speculation?.runtime?.close().catch(() => undefined);
}

/** Where the guess for this command line is kept; undefined when remembering is off. */
export function predictionSlot(args: readonly string[], env: Env = process.env): PredictionSlot | undefined {
  if (env['PTC_NO_OUTPUT_CACHE'] === '1' || args[0] !== 'exec') return undefined;
  const key = JSON.stringify({
    format: PREDICTION_FORMAT,
    args,
    cwd: process.cwd(),
    stamp: buildStamp(),
    uid: process.getuid?.() ?? -1,
    home: os.homedir(),
    node: process.version,
  });
  return { file: path.join(ptcHome({ env }), 'cache', 'exec', cacheFileName(key)), key };
}

/** The remembered guess of `slot`, or undefined when there is none or it is not one we wrote. */
export function readPrediction({ file, key }: PredictionSlot): ExecPrediction | undefined {
  let value: unknown;
  try {
    if (fs.statSync(file).size > EXEC_PREDICTION_MAX_FILE_BYTES) return undefined;
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  return isPrediction(value) && value.key === key ? value : undefined;
}

/** Writes the guess atomically (a reader sees the old one or the new one) and quietly. */
export function writePrediction({ file, key }: PredictionSlot, runtime: NodeRuntimeOptions, request: PredictedRequest): void {
  const prediction: ExecPrediction = { format: PREDICTION_FORMAT, key, runtime, request };
  writeCacheFile(file, JSON.stringify(prediction));
  pruneCacheDir(path.dirname(file), EXEC_PREDICTION_MAX_ENTRIES);
}

async function startSpeculation(args: readonly string[], env: Env): Promise<Speculation | undefined> {
  const slot = predictionSlot(args, env);
  if (slot === undefined) return undefined;
  const prediction = readPrediction(slot);
  if (prediction === undefined) return { slot };
  const { createNodeRuntime } = await import('../languages/typescript/runtime/index.js');
  let runtime: ReturnType<typeof createNodeRuntime>;
  try {
    runtime = createNodeRuntime(prediction.runtime);
  } catch {
    return { slot };
  }
  // resolve() of the guessed policy primes the runtime's pool: the child starts now. The empty
  // program is never run (a run sends its own); it only satisfies the request's shape.
  const request: RunRequest = { program: '', cwd: prediction.request.cwd, policy: prediction.request.policy };
  try {
    await runtime.resolve(request);
  } catch {
    await runtime.close();
    return { slot };
  }
  return { slot, prediction, runtime };
}

function isPrediction(value: unknown): value is ExecPrediction {
  if (!isRecord(value) || value['format'] !== PREDICTION_FORMAT || typeof value['key'] !== 'string' || !isRecord(value['runtime'])) return false;
  const request = value['request'];
  if (!isRecord(request) || typeof request['cwd'] !== 'string' || !isRecord(request['policy'])) return false;
  const policy = request['policy'];
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  return strings(policy['allowRead']) && strings(policy['allowWrite']) && strings(policy['protect']) && typeof policy['network'] === 'boolean';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
