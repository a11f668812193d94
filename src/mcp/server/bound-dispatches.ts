// The dispatches of a run_code result, bounded for the wire: `ptc exec --json` reports every
// sub-call in full, but one JSON-RPC message must stay below what stdio clients accept (the MCP
// SDK's client drops the connection above 10 MiB). Each content is cut with a note, and dispatches
// beyond the total budget are counted instead of listed. docs/mcp-server.md.

import { MAX_MCP_DISPATCH_CONTENT_CHARS, MAX_MCP_DISPATCHES_BYTES } from './limits.js';
import type { ExecDispatch } from '../../ptc/exec-program.js';

export interface BoundedDispatches {
  readonly dispatches: ExecDispatch[];
  /** Dispatches left out because the budget was spent (absent when none were). */
  readonly omitted?: number;
}

export function boundDispatches(all: readonly ExecDispatch[]): BoundedDispatches {
  const dispatches: ExecDispatch[] = [];
  let bytes = 2;
  for (const dispatch of all) {
    const cut = dispatch.content.length > MAX_MCP_DISPATCH_CONTENT_CHARS;
    const content = cut
      ? `${dispatch.content.slice(0, MAX_MCP_DISPATCH_CONTENT_CHARS)}\n… [cut: the content has ${dispatch.content.length} characters; ptc exec --json shows it whole]`
      : dispatch.content;
    const entry = { ...dispatch, content };
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > MAX_MCP_DISPATCHES_BYTES) return { dispatches, omitted: all.length - dispatches.length };
    dispatches.push(entry);
  }
  return { dispatches };
}
