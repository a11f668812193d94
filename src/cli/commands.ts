// What each `ptc` subcommand does, as functions returning their output and exit code, so they are
// testable without a process. The CLI entry only parses flags and prints.

import fs from 'node:fs';
import { ConfigError } from '../errors.js';
import { createHarness, type Harness, type HarnessOptions } from '../harness.js';
import { renderJson } from '../json.js';
import { execProgram, type ExecJson } from '../ptc/exec-program.js';
import { renderPtcOnlySection, renderSdkSection } from '../ptc/prompt-sections.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';
import { DEFAULT_PRESET } from '../presets/presets.js';
import { loadPresetWithTrust } from '../trust/trusted-preset.js';
import { execLanguageOf } from '../languages/program-language.js';
import { DEFAULT_LANGUAGE } from '../languages/table.js';
import { ptcTransportConfig } from '../ptc/transport-config.js';
import type { Context } from '../context/context.js';
import { rowKindOf } from '../row-kind.js';
import { SHIPPED_ROWS } from '../presets/shipped-rows.js';
import { blockOutputCache } from './output-cache-guard.js';
import type { Speculation } from './exec-speculation.js';
import type { CommandOutput } from '../command-line/command-output.js';
import { checkWorkspace, harnessOptionsOf, type PolicyOptions, type WorkspaceOptions } from '../command-line/harness-options.js';

export type { CommandOutput } from '../command-line/command-output.js';
export { checkWorkspace, harnessOptionsOf, type PolicyOptions, type WorkspaceOptions } from '../command-line/harness-options.js';

/** `ptc tools [--json]`: the visible tools with their schemas. */
export async function runToolsCommand(options: WorkspaceOptions & { json?: boolean }): Promise<CommandOutput> {
  return withHarness(options, (harness) => {
    guardOutputCache(harness);
    const schemas = harness.tools.schemas();
    if (options.json) {
      const rows = schemas.map((s) => ({ ...s, executionMode: harness.tools.executionMode(s.name, { parent: SDK_PARENT }) }));
      return { stdout: `${JSON.stringify(rows, null, 2)}\n`, exitCode: 0 };
    }
    const header =
      harness.preset.mode === 'ptc'
        ? `# preset ${harness.preset.name}: the model calls these tools inside ${RUN_CODE_TOOL_NAME} programs`
        : `# preset ${harness.preset.name}: the model calls these tools directly`;
    const blocks = schemas.map((s) => {
      const mode = harness.tools.executionMode(s.name, { parent: SDK_PARENT });
      return [`${s.name}  (${mode})`, indent(s.description.trim(), '  '), ...describeArgs(s.inputSchema)].join('\n');
    });
    return { stdout: `${header}\n\n${blocks.join('\n\n')}\n`, exitCode: 0 };
  });
}

/** `ptc sdk`: the `tools:sdk` prompt section the model sees (and `tools:ptc-only` after it). */
export async function runSdkCommand(options: WorkspaceOptions & { lang?: 'ts' | 'py' }): Promise<CommandOutput> {
  return withHarness(options, (harness) => {
    guardOutputCache(harness);
    if (harness.preset.mode !== 'ptc') {
      return {
        stdout: '',
        stderr: `ptc: preset ${harness.preset.name} presents tools natively; its model sees no SDK section. Try --preset ptc.\n`,
        exitCode: 0,
      };
    }
    // The SDK of the preset's runtime language, unless --lang asks for another.
    const flavour = options.lang === undefined ? {} : { language: execLanguageOf('', options.lang) };
    return { stdout: `${renderSdkSection(harness.tools, harness.ctx, flavour)}\n\n${renderPtcOnlySection(harness.tools, harness.ctx)}\n`, exitCode: 0 };
  });
}

/**
 * The CLI caches `ptc tools` and `ptc sdk` output with the files and variables it read
 * (output-cache.ts); a plugin module's own imports and an MCP server's answers are not among them.
 */
function guardOutputCache(harness: Harness): void {
  // A shipped row reads its inputs through node:fs; one that talks to host processes (mcp) does not.
  const unwatched = harness.preset.rows.find((row) => {
    const kind = rowKindOf(SHIPPED_ROWS, row.name);
    return kind === undefined || kind.hostCommands !== undefined;
  });
  if (unwatched !== undefined) blockOutputCache(`row ${unwatched.name}`);
}

export interface ExecOptions extends PolicyOptions {
  /** A file holding the program body, or `-` for standard input. */
  readonly file: string;
  readonly maxParallel?: number;
  readonly json?: boolean;
  /** Program text read from stdin by the caller when `file` is `-`. */
  readonly stdin?: () => Promise<string>;
  /** The program text when the caller has read it already (`file` then only names it). */
  readonly source?: string;
  /** A strip of `source` the caller started ahead (stripProgramAhead, strip.ts); awaited before the run. */
  readonly stripping?: Promise<void>;
  /**
   * Where each log line goes as the program writes it (the CLI: stderr). Lines it did not receive
   * while the program ran lead the result's `stderr`, so none is lost. Unused with `json`: the logs
   * are in the object and stderr stays quiet.
   */
  readonly writeLog?: (line: string) => void;
  /** The program language; default: py for a `.py` file, else ts. Python swaps the preset's runtime row. */
  readonly lang?: 'ts' | 'py';
  /** A child the CLI started ahead on a guess (exec-speculation.ts); used only when the harness asks for exactly it. */
  readonly speculation?: Speculation;
}

/** The `ptc exec --json` object (README, "ptc exec --json"). */
export type { ExecJson };

/**
 * `ptc exec <file|->`: runs one program body against the preset's tools, no model involved. stdout
 * carries the value alone (or, with `json`, the one JSON object), so it can be piped to a parser; the
 * program's logs go to `writeLog` as they happen.
 */
export async function runExecCommand(options: ExecOptions): Promise<CommandOutput> {
  const language = execLanguageOf(options.file, options.lang);
  // The guessed child is a Node one: a Python program never uses it.
  const speculation = language === DEFAULT_LANGUAGE ? options.speculation : undefined;
  if (speculation === undefined) await options.speculation?.runtime?.close();
  let code: string;
  try {
    code = options.source ?? (await readProgram(options));
  } catch (error) {
    await speculation?.runtime?.close();
    throw error;
  }
  const { file: _file, maxParallel, json: _json, stdin: _stdin, writeLog: _writeLog, lang: _lang, source: _source, stripping, speculation: _speculation, ...policy } = options;
  // The row-swapping module loads for a program in another language than the default only.
  const presetForLanguage = language !== DEFAULT_LANGUAGE ? (await import('../presets/python-runtime-plugin.js')).presetForLanguage : undefined;
  const harnessOptions = {
    ...policy,
    // A Python program: the same preset with its runtime row swapped for its pack's (python-runtime).
    ...(presetForLanguage !== undefined
      ? {
          preset: presetForLanguage(
            typeof policy.preset === 'object'
              ? policy.preset
              : loadPresetWithTrust(policy.preset ?? DEFAULT_PRESET, { workspace: checkWorkspace(policy.cwd), env: process.env }).preset,
            language,
          ),
        }
      : {}),
    ...(maxParallel !== undefined ? { maxParallelSubCalls: maxParallel } : {}),
    // One program, so one child: no second warm child, no refill after it (docs/runtime-lifecycle.md).
    runtimePool: { size: 1, refill: false },
  };
  // With --json the object is the whole record (logs included) and stderr stays quiet.
  const writeLog = options.json ? undefined : options.writeLog;
  let streamed = 0;
  const onLog = writeLog
    ? (line: string) => {
        streamed++;
        writeLog(line);
      }
    : undefined;
  // Whatever the preset's presentation, the program runs in a ptc scope over its tools; on the child
  // started ahead (exec-speculation.ts) when the harness asks for exactly its runtime and policy.
  const { openExecHarness } = await import('./exec-speculation-check.js');
  let opened: Awaited<ReturnType<typeof openExecHarness>>;
  try {
    opened = await openExecHarness({ ...harnessOptionsOf(harnessOptions), runtimePool: harnessOptions.runtimePool }, speculation);
  } catch (error) {
    await speculation?.runtime?.close();
    throw error;
  }
  try {
    const { scope } = opened;
    await primeChild(scope, code);
    const label = options.file === '-' ? 'ptc exec (stdin)' : `ptc exec ${options.file}`;
    await stripping;
    const { json: result } = await execProgram(scope, { args: { code, description: label }, id: 'exec', ...(onLog ? { onLog } : {}) });
    opened.remember();
    const { value, logs, error } = result;
    if (options.json) return { stdout: `${JSON.stringify(result, null, 2)}\n`, exitCode: result.ok ? 0 : 1 };
    // Lines not streamed (no writeLog, or a runtime without onLog) come first on stderr, in order.
    const rest = logs
      .slice(streamed)
      .map((line) => `${line}\n`)
      .join('');
    const stdout = value !== undefined ? `${renderJson(value)}\n` : '';
    if (!error) return { stdout, ...(rest ? { stderr: rest } : {}), exitCode: 0 };
    return { stdout, stderr: `${rest}ptc: ${error.code}: ${error.message}\n`, exitCode: 1 };
  } finally {
    await opened.dispose();
  }
}

/**
 * Starts the program's child now, with the policy run_code will ask for (ptcTransportConfig), so
 * it boots while run_code's arguments are checked (ajv's first compile) instead of after. The child
 * runs nothing until run() sends it the program; the preset and workspace trust were decided when
 * the harness was created. A request resolve() refuses is left to run_code, which reports it.
 */
async function primeChild(scope: Context, code: string): Promise<void> {
  const runtime = scope.get('ptcRuntime');
  const settings = scope.get('harness');
  if (runtime === undefined || settings === undefined) return;
  const { cwd, policy } = ptcTransportConfig(settings);
  await runtime.resolve({ program: code, cwd, ...(policy !== undefined ? { policy } : {}) }).catch(() => {});
}

/** Makes executionMode answer as for a program sub-call (the mode a program's call would get). */
const SDK_PARENT = { id: 'cli', name: RUN_CODE_TOOL_NAME };

async function readProgram(options: ExecOptions): Promise<string> {
  if (options.file === '-') {
    if (!options.stdin) throw new ConfigError('Reading the program from standard input is not available here.');
    return options.stdin();
  }
  try {
    return await fs.promises.readFile(options.file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (error as Error).message;
    throw new ConfigError(`Cannot read the program file ${options.file}: ${reason}. Pass a file with the program body, or - for stdin.`);
  }
}

async function withHarness<T>(
  options: PolicyOptions & Pick<HarnessOptions, 'maxParallelSubCalls' | 'runtimePool'>,
  use: (harness: Harness) => T | Promise<T>,
): Promise<T> {
  const harness = await createHarness({
    ...harnessOptionsOf(options),
    ...(options.runtimePool !== undefined ? { runtimePool: options.runtimePool } : {}),
  });
  try {
    return await use(harness);
  } finally {
    await harness.dispose();
  }
}

/** Resolves `--cwd` and refuses a missing or non-directory path with CONFIG (exit 2). */
function describeArgs(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const { properties, required } = schema as { properties?: Record<string, unknown>; required?: unknown };
  if (!properties || typeof properties !== 'object') return [];
  const requiredNames = Array.isArray(required) ? required : [];
  return Object.entries(properties).map(([name, prop]) => {
    const p = (typeof prop === 'object' && prop !== null ? prop : {}) as { type?: unknown; description?: unknown };
    const type = Array.isArray(p.type) ? p.type.join(' | ') : typeof p.type === 'string' ? p.type : 'any';
    const flag = requiredNames.includes(name) ? 'required' : 'optional';
    const description = typeof p.description === 'string' ? ` — ${p.description}` : '';
    return `  - ${name}: ${type}, ${flag}${description}`;
  });
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}
