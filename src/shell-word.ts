// A word as a POSIX shell reads it back: bare when it holds only safe characters, else in single
// quotes. For commands the harness shows a person to copy (`ptc trust <dir>`, an MCP server's command
// in the trust prompt).

/** `word` quoted for a POSIX shell when it needs it. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
