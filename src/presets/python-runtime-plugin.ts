// The `python-runtime` row: provides `ptcRuntime`, a Python runtime with the harness's sandbox mode
// and deadline, closed when the row is disposed. Its config may set the runtime's limits and the
// execution mode (`in-memory` keeps one process per conversation; docs/in-memory-mode.md). Also the
// helpers `ptc exec file.py` and `--lang py` use to run a preset's tools under Python.

import { z } from 'zod';
import type { Plugin } from '../context/context.js';
import { createPythonRuntime, type PythonRuntimeOptions } from '../languages/python/runtime/index.js';
import { languagePackOr, languagePacks } from '../languages/table.js';
import type { PtcLanguage } from '../ptc-runtime/types.js';
import type { PresetFile, PresetRow } from './preset-file.js';
import '../harness-settings.js';
import { processRuntimeOptions, processRuntimeRowFields } from '../ptc/process-runtime-row.js';

const pythonRuntimeConfig = z
  .strictObject({
    ...processRuntimeRowFields,
    /** The python3 to run (default: python3 on PATH). */
    pythonPath: z.string().min(1).optional(),
  })
  .default({});

export type PythonRuntimeRowConfig = z.infer<typeof pythonRuntimeConfig>;

export const PYTHON_RUNTIME_ROW = 'python-runtime';
export const NODE_RUNTIME_ROW = 'node-runtime';

export const pythonRuntimePlugin: Plugin<PythonRuntimeRowConfig> = {
  name: PYTHON_RUNTIME_ROW,
  inject: ['harness'],
  config: pythonRuntimeConfig,
  apply(ctx, config) {
    const settings = ctx.harness;
    const options: PythonRuntimeOptions = {
      ...processRuntimeOptions(settings, config),
      ...(config.pythonPath !== undefined ? { pythonPath: config.pythonPath } : {}),
    };
    const runtime = createPythonRuntime(options);
    ctx.effect(() => () => runtime.close());
    ctx.provide('ptcRuntime', runtime);
  },
};

export { parseProgramLanguage, programLanguageOf } from '../languages/program-language.js';

/**
 * A preset's rows with its runtime row set to `language`'s (its pack's runtimeRow): a `node-runtime`
 * row becomes a `python-runtime` row (its timeout, limits, pool, processes and execution mode carry
 * over) or the reverse. Rows that already match, presets without a runtime row, and a language whose
 * pack ships no row are returned as they are.
 */
export function withRuntimeLanguage(rows: readonly PresetRow[], language: PtcLanguage): PresetRow[] {
  const wanted = languagePackOr(language).runtimeRow;
  if (wanted === undefined) return [...rows];
  const others = new Set(languagePacks().flatMap((pack) => (pack.runtimeRow === undefined || pack.runtimeRow === wanted ? [] : [pack.runtimeRow])));
  return rows.map((row) => {
    if (!others.has(row.name)) return row;
    const config = carriedConfig(row.config);
    return { index: row.index, name: wanted, at: row.at, baseDir: row.baseDir, ...(config === undefined ? {} : { config }) };
  });
}

function carriedConfig(config: unknown): Record<string, unknown> | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const kept = Object.fromEntries(
    Object.entries(config as Record<string, unknown>).filter(([key]) => ['timeout', 'limits', 'pool', 'processes', 'execution', 'memoryIdleMs'].includes(key)),
  );
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** `preset` with its runtime row set to `language` (withRuntimeLanguage), for `ptc exec file.py` and `--lang`. */
export function presetForLanguage<P extends PresetFile>(preset: P, language: PtcLanguage): P {
  return { ...preset, rows: withRuntimeLanguage(preset.rows, language) };
}
