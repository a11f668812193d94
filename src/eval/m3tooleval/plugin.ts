// The M3ToolEval tools as a plugin: a row `{ task: "<domain>/<name>" }` registers exactly the tools
// that task offers, in its order, with fresh state (a new browser for web_browsing). Written as a
// plugin module (name, config, apply), so it also loads as a preset row or `--plugin` file; `ptc
// eval` applies it in code (docs/eval.md, "Presets").

import { z } from 'zod';
import type { Context } from '../../context/context.js';
import { ConfigError } from '../../errors.js';
import type { ToolDefinition } from '../../tools/types.js';
import type { JsonValue } from '../../json.js';
import { loadTasks, type Domain, type M3Task } from './tasks.js';
import { dnaSequencerTools } from './tools/dna-sequencer.js';
import { messageDecoderTools } from './tools/message-decoder.js';
import { tradeCalculatorTools } from './tools/trade-calculator.js';
import { travelPlannerTools } from './tools/travel-planner.js';
import { webBrowsingTools } from './tools/web-browser.js';

export const name = 'm3tooleval';

export const config = z.object({
  task: z.string().describe('The task whose tools to register, e.g. trade_calculator/estimate_final_value.'),
});

type AnyTool = ToolDefinition<never, JsonValue, never>;

const DOMAIN_TOOLS: Readonly<Record<Domain, () => readonly unknown[]>> = {
  message_decoder: messageDecoderTools,
  cryptobotanists_plant_dna_sequencer: dnaSequencerTools,
  trade_calculator: tradeCalculatorTools,
  travel_itinerary_planning: travelPlannerTools,
  web_browsing: () => webBrowsingTools(),
};

/** Fresh tool definitions for one task run, in the order the task lists them. */
export function toolsForTask(task: M3Task): AnyTool[] {
  const made = DOMAIN_TOOLS[task.domain]() as AnyTool[];
  return task.tools.map((t) => {
    const tool = made.find((m) => m.name === t.name);
    if (!tool) throw new ConfigError(`M3ToolEval task ${task.name} offers ${t.name}, which the ${task.domain} tools do not define.`);
    return tool;
  });
}

export function findTask(taskName: string): M3Task {
  const task = loadTasks().find((t) => t.name === taskName);
  if (!task) throw new ConfigError(`No M3ToolEval task named "${taskName}"; names look like trade_calculator/estimate_final_value.`);
  return task;
}

export const inject = ['tools'];

export function apply(ctx: Context, options: z.infer<typeof config>): void {
  for (const tool of toolsForTask(findTask(options.task))) ctx.tools.register(tool);
}

/** The plugin as an object, for `ctx.plugin(m3toolevalPlugin, { task })`. */
export const m3toolevalPlugin = { name, inject, config, apply };
