// The `logger` service (docs/architecture.md, "Services"): where the harness's own notes and warnings
// go — a skill or workflow that did not load, a workflow folder of an untrusted workspace, a turn that
// failed in the UI. The default row (`logger`) writes them to stderr as `ptc: warning: ...`; a plugin
// may send them anywhere (a file, a UI panel, a test's list). Lines of a command's own output (stdout,
// progress on a terminal) are not log lines.

import type { Context, Plugin } from './context.js';

export type LogLevel = 'info' | 'note' | 'warn' | 'error';

export interface Logger {
  /** One line (no trailing newline): what happened and, for a problem, how to fix it. */
  log(level: LogLevel, text: string): void;
}

const PREFIX: Readonly<Record<LogLevel, string>> = { info: '', note: 'note: ', warn: 'warning: ', error: 'error: ' };

/** The default: one `ptc: <level>: <text>` line on stderr (never stdout, which `ptc mcp serve` and `ptc acp` speak on). */
export const stderrLogger: Logger = {
  log(level, text) {
    process.stderr.write(`ptc: ${PREFIX[level]}${text}\n`);
  },
};

/** The container's logger, or stderr before a `logger` row is loaded (rows above it log there). */
export function loggerOf(ctx: Context): Logger {
  return ctx.get('logger') ?? stderrLogger;
}

export const loggerPlugin: Plugin = {
  name: 'logger',
  apply(ctx) {
    ctx.provide('logger', stderrLogger);
  },
};

declare module './context.js' {
  interface Services {
    logger: Logger;
  }
}
