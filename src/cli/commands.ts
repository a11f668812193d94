// What each `ptc` subcommand does, as functions returning their stdout text (testable without a process).

import fs from 'node:fs';
import path from 'node:path';
import { renderTypeScriptSdk } from '../codegen/index.js';
import { ConfigError } from '../errors.js';
import { createHarness, type Harness } from '../harness.js';

export interface WorkspaceOptions {
  readonly cwd?: string;
}

/** `ptc tools [--json]`: the visible tools with their schemas. */
export async function runToolsCommand(options: WorkspaceOptions & { json?: boolean }): Promise<string> {
  return withHarness(options, (harness) => {
    const schemas = harness.tools.schemas();
    if (options.json) {
      const rows = schemas.map((s) => ({ ...s, executionMode: harness.tools.executionMode(s.name) }));
      return `${JSON.stringify(rows, null, 2)}\n`;
    }
    return schemas
      .map((s) => {
        const lines = [`${s.name}  (${harness.tools.executionMode(s.name)})`, indent(s.description.trim(), '  ')];
        lines.push(...describeArgs(s.inputSchema));
        return lines.join('\n');
      })
      .join('\n\n')
      .concat('\n');
  });
}

/** `ptc sdk`: the TypeScript SDK the model sees for the visible tools. */
export async function runSdkCommand(options: WorkspaceOptions): Promise<string> {
  return withHarness(options, (harness) => renderTypeScriptSdk(harness.tools.schemas()));
}

async function withHarness<T>(options: WorkspaceOptions, use: (harness: Harness) => T | Promise<T>): Promise<T> {
  const harness = createHarness({ cwd: checkWorkspace(options.cwd) });
  try {
    return await use(harness);
  } finally {
    await harness.dispose();
  }
}

/** Resolves `--cwd` and refuses a missing or non-directory path with CONFIG (exit 2). */
export function checkWorkspace(cwd: string | undefined): string {
  const dir = path.resolve(cwd ?? process.cwd());
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ConfigError(`--cwd ${dir} does not exist; pass an existing directory.`);
  }
  if (!stat.isDirectory()) throw new ConfigError(`--cwd ${dir} is not a directory; pass a directory.`);
  return dir;
}

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
