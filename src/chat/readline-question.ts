// One line from the person through readline, with the two ways a wait ends early: the input closing
// (EOF, /exit, Ctrl-C at the prompt) and a call's abort.

import type { Interface } from 'node:readline';

/** One line from the user, or undefined at EOF / when the interface closed. */
export function question(rl: Interface, prompt: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onClose = () => resolve(undefined);
    rl.once('close', onClose);
    rl.question(prompt, (answer) => {
      rl.off('close', onClose);
      resolve(answer);
    });
  });
}

/** A question that gives up (undefined) when `signal` aborts. */
export async function questionUntil(rl: Interface, prompt: string, signal: AbortSignal): Promise<string | undefined> {
  if (signal.aborted) return undefined;
  const onAbort = () => rl.write('\n');
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const answer = await question(rl, prompt);
    return signal.aborted ? undefined : answer;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
