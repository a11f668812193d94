// Plugin modules: a row whose name is a path (.ts, .mts, .js, .mjs) or a package name. The module's
// named exports are the plugin: `name`, optional `inject`, optional `config` (a zod schema) and
// `apply(ctx, config)`. It runs on the host with the user's rights, like a config file
// (docs/presets.md, "Plugin modules").

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ZodType } from 'zod';
import type { Plugin } from '../context/context.js';
import { ConfigError } from '../errors.js';
import { findPackage, isInside } from './package-location.js';
import { ensureTypeScriptHooks, nativeImport, packageSpecifier, PLUGIN_VERSION_PARAM } from './typescript-hooks.js';

export const PLUGIN_MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

/** npm's package name shape: optional `@scope/`, then lower-case letters, digits, `-`, `.`, `_`. */
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** A row name that points at a file: it starts like a path or ends with a module extension. */
export function isModulePath(name: string): boolean {
  return /^\.{1,2}[\\/]/.test(name) || path.isAbsolute(name) || PLUGIN_MODULE_EXTENSIONS.some((ext) => name.endsWith(ext));
}

export function isPackageName(name: string): boolean {
  return PACKAGE_NAME.test(name);
}

export type LoadedPluginModule = { readonly plugin: Plugin<unknown>; readonly source: string };

/**
 * Imports a plugin file (relative paths against `baseDir`) and checks its exports; failures are CONFIG
 * naming the file. A `version` imports a new instance of the file and its local modules (Node keeps
 * every module it imported, keyed by URL): how an edited plugin reloads (docs/plugin-reload.md).
 */
export async function loadPluginFile(name: string, baseDir: string, version?: string): Promise<LoadedPluginModule> {
  const file = path.resolve(baseDir, name);
  if (!PLUGIN_MODULE_EXTENSIONS.some((ext) => file.endsWith(ext))) {
    throw new ConfigError(`plugin file ${file} must end with ${PLUGIN_MODULE_EXTENSIONS.join(', ')}.`);
  }
  if (!fs.existsSync(file)) throw new ConfigError(`plugin file ${file} does not exist.`);
  ensureTypeScriptHooks();
  const url = pathToFileURL(file);
  if (version !== undefined) url.searchParams.set(PLUGIN_VERSION_PARAM, version);
  const exports = await importOrExplain(url.href, `plugin file ${file}`);
  return { plugin: pluginFromExports(exports, `plugin file ${file}`), source: file };
}

/**
 * Imports a package as if from the directory `from` and checks its exports. With `untrustedWorkspace`,
 * a package that would load from inside that workspace is CONFIG instead (docs/presets.md, "Trust").
 */
export async function loadPluginPackage(name: string, from: string, hint: string, untrustedWorkspace?: string): Promise<LoadedPluginModule> {
  if (untrustedWorkspace !== undefined) {
    const found = findPackage(name, from);
    if (found !== undefined && isInside(found.dir, untrustedWorkspace)) {
      throw new ConfigError(
        `package ${JSON.stringify(name)} would load from ${found.dir}, inside the workspace ${untrustedWorkspace}, which is not trusted; ` +
          `review and trust it with \`ptc trust ${untrustedWorkspace}\`.`,
      );
    }
  }
  ensureTypeScriptHooks();
  const trustHint = untrustedWorkspace === undefined ? '' : ` (the untrusted workspace ${untrustedWorkspace} is not searched: \`ptc trust ${untrustedWorkspace}\`)`;
  const exports = await importOrExplain(packageSpecifier(name, from), `plugin package ${JSON.stringify(name)}`, name, () =>
    `unknown plugin: no shipped plugin of that name and no package ${JSON.stringify(name)} installed in ${from}${trustHint}; ${hint}`,
  );
  return { plugin: pluginFromExports(exports, `plugin package ${JSON.stringify(name)}`), source: name };
}

async function importOrExplain(
  specifier: string,
  what: string,
  packageName?: string,
  notFound?: () => string,
): Promise<Record<string, unknown>> {
  try {
    return (await nativeImport(specifier)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    // The package itself is missing (not one of its own imports).
    if (notFound && code === 'ERR_MODULE_NOT_FOUND' && firstLine(error).includes(`'${packageName}'`)) {
      throw new ConfigError(notFound());
    }
    throw new ConfigError(`cannot load ${what}: ${firstLine(error)}`, { cause: error });
  }
}

function pluginFromExports(exports: Record<string, unknown>, what: string): Plugin<unknown> {
  const problems: string[] = [];
  const { name, inject, config, apply } = exports;
  if (typeof name !== 'string' || name.trim() === '') problems.push('`export const name = "..."` (a non-empty string)');
  if (typeof apply !== 'function') problems.push('`export function apply(ctx, config)`');
  if (inject !== undefined && !(Array.isArray(inject) && inject.every((s) => typeof s === 'string'))) {
    problems.push('`inject`, when exported, as an array of service names');
  }
  if (config !== undefined && typeof (config as { safeParse?: unknown } | null)?.safeParse !== 'function') {
    problems.push('`config`, when exported, as a zod schema');
  }
  if (problems.length > 0) {
    const hint = exports['default'] !== undefined ? ' (a default export is not read: export the members by name)' : '';
    throw new ConfigError(`${what} must export ${problems.join(', ')}${hint}.`);
  }
  return {
    name: name as string,
    ...(inject !== undefined ? { inject: inject as string[] } : {}),
    ...(config !== undefined ? { config: config as ZodType<unknown> } : {}),
    apply: apply as Plugin<unknown>['apply'],
  };
}

/** The message of an error without its stack (a user's module error is not our internal error). */
export function firstLine(error: unknown): string {
  const message = messageOf(error);
  return message.split('\n').find((line) => line.trim() !== '')?.trim() ?? 'unknown error';
}

/** The eraser's errors cross the loader thread as plain objects `{ message, startLine, startColumn }`. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    const { message, startLine, startColumn } = error as { message: string; startLine?: unknown; startColumn?: unknown };
    return typeof startLine === 'number' ? `${message} (line ${startLine}${typeof startColumn === 'number' ? `:${startColumn + 1}` : ''})` : message;
  }
  return String(error);
}
