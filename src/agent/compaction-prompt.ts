// The fixed prompt of a summary compaction (docs/compaction.md, "The summary prompt"). Changing it
// changes what future sessions' summaries look like, never how a logged one is rebuilt (the summary
// text itself is in the log).

export const SUMMARY_SYSTEM_PROMPT = [
  'You compress the early part of a coding agent\'s session so the agent can continue without it.',
  'You get a transcript: user messages, the agent\'s messages and tool calls, and tool results (some shortened to a stub that names a file holding the full text).',
  'Write a summary the agent will read in place of that transcript. Keep, as short bullet points:',
  '- what the user asked for, and any constraints or preferences they stated;',
  '- what has been done: files read, created or changed (with paths), commands run and what they showed;',
  '- facts found that later steps depend on (names, paths, versions, error messages, decisions and their reasons);',
  '- what failed or was ruled out, so it is not tried again;',
  '- what was about to happen next.',
  'Keep every path a stub names, so the agent can read the full text back. Do not invent anything that is not in the transcript.',
  'Write only the summary: no greeting, no closing remark. Be brief: a page at most.',
].join('\n');

/** The user message of the summary call: the transcript, with the focus the person asked for (`/compact <focus>`). */
export function summaryRequestText(transcript: string, focus: string | undefined): string {
  const ask = focus !== undefined && focus.trim() !== '' ? `\n\nGive most room to: ${focus.trim()}` : '';
  return `Summarise this transcript.${ask}\n\n<transcript>\n${transcript}\n</transcript>`;
}

/**
 * The user message that replaces the summarised part in every later request. The goal, the todo list
 * and the latest user message are carried verbatim (never summarised) below the summary.
 */
export function summaryMessageText(parts: { summary: string; goal?: string; todos?: string; plan?: string; lastUserMessage?: string }): string {
  const sections = [`[Summary of the earlier part of this session, written when it was compacted]\n${parts.summary.trim()}`];
  if (parts.goal !== undefined) sections.push(`[The goal, verbatim]\n${parts.goal}`);
  if (parts.todos !== undefined) sections.push(`[The todo list (the plan) as last set, verbatim]\n${parts.todos}`);
  if (parts.plan !== undefined) sections.push(`[Plan mode is on; the plan last proposed with plan_propose, verbatim]\n${parts.plan}`);
  if (parts.lastUserMessage !== undefined) sections.push(`[The latest user message before the cut, verbatim]\n${parts.lastUserMessage}`);
  return sections.join('\n\n');
}
