// Prompt lines every language pack says in its own words around the same fact.

import type { ProgramExecution } from '../ptc-runtime/types.js';

/** What survives between runs; `names` are the language's words for top-level definitions. */
export function stateLine(execution: ProgramExecution | undefined, names: string): string {
  return execution === 'in-memory'
    ? `- Memory is kept between runs of this conversation: ${names} defined at the top level of one program are visible to the next, until the memory is reset (a timeout, a crash, a long pause; the next run then says so). Tool results are never cached: call again for fresh data.`
    : '- Each run starts with fresh state: nothing survives from one run to the next.';
}

/** A run_code description's closing words on state. */
export function stateSentence(execution: ProgramExecution): string {
  return execution === 'in-memory'
    ? 'top-level names persist from one run to the next in this conversation until the memory is reset.'
    : 'each run starts with fresh state.';
}
