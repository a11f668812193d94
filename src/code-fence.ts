// A markdown code block that its own text cannot close. Front-ends that render markdown (an ACP
// editor's permission prompt, docs/acp.md) show a program or arguments a model wrote; a fence of three
// backticks would let a line of three backticks in that text end the block and render the rest as
// the front-end's own words (docs/security.md, "Approval edges").

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * `text` in a backtick fence longer than any backtick or tilde run inside it (at least three), so
 * no line of the text closes it under CommonMark or under renderers that also close on tildes.
 */
export function codeFence(text: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1, longestRun(text, '~') + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}
