// Fenced code blocks as CommonMark reads them (an opening run of 3+ backticks or tildes, up to three
// spaces in; closed by a run of the same character at least as long with nothing after it), for tests
// that check a front-end's markdown keeps a model's or a server's text inside its block.

export interface FencedMarkdown {
  /** The text of each code block, in order. */
  readonly blocks: string[];
  /** Every line outside code blocks. */
  readonly outside: string;
}

export function readFences(markdown: string): FencedMarkdown {
  const blocks: string[] = [];
  const outside: string[] = [];
  let open: { char: string; length: number; lines: string[] } | undefined;
  for (const line of markdown.split(/\r\n|\r|\n/)) {
    if (open === undefined) {
      const start = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
      // A backtick fence's info string cannot hold a backtick.
      if (start && !(start[1]!.startsWith('`') && start[2]!.includes('`'))) open = { char: start[1]![0]!, length: start[1]!.length, lines: [] };
      else outside.push(line);
      continue;
    }
    const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
    if (close && close[1]![0] === open.char && close[1]!.length >= open.length) {
      blocks.push(open.lines.join('\n'));
      open = undefined;
    } else open.lines.push(line);
  }
  if (open) blocks.push(open.lines.join('\n'));
  return { blocks, outside: outside.join('\n') };
}
