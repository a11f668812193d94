// The goal flags of `ptc run` (docs/goals.md): --goal, --goal-check, --max-rounds, --max-tokens, --max-time.

import type { Command } from 'commander';

import { parseDuration } from '../agent/goal-state.js';
import type { GoalOptions } from '../agent/goal.js';
import { ConfigError } from '../errors.js';
import { positiveInteger } from './flags.js';

export interface GoalFlags {
  goal?: string;
  goalCheck?: string;
  maxRounds?: number;
  maxTokens?: number;
  maxTime?: string;
}

export function addGoalOptions(command: Command): Command {
  return command
    .option('--goal <objective>', 'work towards this goal in rounds until it is met or a budget runs out (docs/goals.md)')
    .option('--goal-check <command>', 'with --goal: a command (run in the sandbox like bash) that must exit 0 for the goal to count as met')
    .option('--max-rounds <n>', 'with --goal: the most rounds (default 10)', positiveInteger('--max-rounds'))
    .option('--max-tokens <n>', 'with --goal: the most tokens of all rounds together', positiveInteger('--max-tokens'))
    .option('--max-time <duration>', 'with --goal: the most wall time of all rounds, e.g. 90s, 30m, 2h');
}

/** The goal of the flags, or nothing; a budget flag without --goal is CONFIG. */
export function goalFromFlags(o: GoalFlags): { goal?: GoalOptions } {
  if (o.goal === undefined) {
    const stray = (['goalCheck', 'maxRounds', 'maxTokens', 'maxTime'] as const).find((k) => o[k] !== undefined);
    if (stray !== undefined) {
      const flag = `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      throw new ConfigError(`${flag} only works with --goal "<objective>"; add --goal or drop ${flag}.`);
    }
    return {};
  }
  return {
    goal: {
      objective: o.goal,
      ...(o.goalCheck !== undefined ? { check: o.goalCheck } : {}),
      ...(o.maxRounds !== undefined ? { maxRounds: o.maxRounds } : {}),
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
      ...(o.maxTime !== undefined ? { maxTimeMs: parseDuration(o.maxTime) } : {}),
    },
  };
}
