// One progress line per goal event (docs/goals.md), as `ptc run --goal` and the chat's `/goal` print
// them.

import type { SessionEvent } from '../session/events.js';

/** The line for a `goal/*` event (`goal round 2: 3 round(s) left`); other events by their type. */
export function goalProgressLine(event: SessionEvent): string {
  switch (event.type) {
    case 'goal/set':
      return `goal: ${event.objective}${event.check !== undefined ? ` (check: ${event.check})` : ''}`;
    case 'goal/round':
      return `goal round ${event.round}${event.resumed === true ? ' (resumed)' : ''}: ${event.left.rounds} round(s) left`;
    case 'goal/check':
      return `goal check ${event.passed ? 'passed' : `failed (exit ${event.exitCode ?? 'none'})`}: ${event.command}`;
    case 'goal/met':
      return `goal met in round ${event.round}`;
    case 'goal/abandoned':
      return `goal abandoned in round ${event.round}: ${event.message}`;
    default:
      return event.type;
  }
}
