// Lets a command say that its output must not be cached (src/cli/output-cache.ts): it used code or
// data the cache cannot watch (a plugin module's imports, an MCP server's answers). Its own file,
// with no imports, so commands.ts can call it without loading the cache.

let blocked: string | undefined;

export function blockOutputCache(reason: string): void {
  blocked ??= reason;
}

/** Why the current command's output must not be cached, or undefined. */
export function outputCacheBlocked(): string | undefined {
  return blocked;
}
