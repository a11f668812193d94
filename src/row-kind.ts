// A preset row and a row kind: what a shipped row name of a preset file stands for (docs/presets.md,
// "Shipped rows"). Below assembly, so a feature can describe its own row.
// Assembly (assemble.ts) knows no feature; it is handed the kinds, and a feature describes its own
// row (the MCP client's is in src/mcp/client/row-kind.ts). The harness provides the table it
// assembled with as the `rowKinds` service, so Creator mode's tools check rows against the same one.

import type { Plugin } from './context/context.js';

/** One `plugins` entry: a shipped plugin name, a path to a plugin module, or a package name. */
export interface PresetRow {
  /** 1-based position in the list (what error messages call "row N"). */
  readonly index: number;
  readonly name: string;
  readonly config?: unknown;
  /** Where the row is written: `file:line`, for messages. */
  readonly at: string;
  /** Relative module paths in `name` resolve against this directory. */
  readonly baseDir: string;
}

export interface RowKind {
  /** The plugin for a row's config; features load lazily, so a command loads only the rows it has. */
  readonly load: (config: unknown) => Plugin<unknown> | Promise<Plugin<unknown>>;
  /**
   * What a row of this kind would start on the host outside the sandbox (MCP stdio servers), one
   * line each, for the trust prompt. A kind with this is never assembled just to check a preset.
   */
  readonly hostCommands?: (row: PresetRow) => string[];
  /** Checks a row's config without loading its plugin: the problems, or undefined when it is valid. */
  readonly checkConfig?: (config: unknown) => string | undefined;
}

/** Shipped row names -> their kinds. */
export type RowKinds = Readonly<Record<string, RowKind>>;

/** The kind a row name is, when it is a shipped one (an own property: `constructor` is no row). */
export function rowKindOf(kinds: RowKinds, name: string): RowKind | undefined {
  return Object.hasOwn(kinds, name) ? kinds[name] : undefined;
}

declare module './context/context.js' {
  interface Services {
    rowKinds: RowKinds;
  }
}
