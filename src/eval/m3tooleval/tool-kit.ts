// What every M3ToolEval tool shares: the body computes a Python value; the program receives it as
// JSON; the model in native presentation sees Python's str() of it, cut at 2,000 characters as the
// original's JSON-call mode cut it; a Python exception becomes the original's failure text.
// docs/eval.md, "Tools".

import type { z } from 'zod';
import { defineTool } from '../../tools/define-tool.js';
import type { ToolDefinition } from '../../tools/types.js';
import type { JsonValue } from '../../json.js';
import { pyRepr, pyStr, toJson, type PyValue } from './py-value.js';

/** The original cut tool output beyond this many characters (JSON-call mode). */
export const MAX_TOOL_OUTPUT_CHARS = 2000;

/** Python's str() of a tool result as the original's JSON-call mode showed it. */
export function renderToolOutput(value: PyValue): string {
  const text = pyStr(value);
  return text.length > MAX_TOOL_OUTPUT_CHARS ? `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}...\n[Output Truncated]` : text;
}

/** The original's text when a tool raised: it names the tool and the positional arguments. */
export function failureText(tool: string, args: readonly PyValue[]): string {
  return `Failed to execute tool ${tool} with args ${pyRepr({ t: 'list', v: args })}. Did you try to invoke more than one tool at a time?`;
}

export interface PyToolInit<I extends z.ZodType, O extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly examples?: readonly z.input<I>[];
  /** The call's positional arguments as the original received them (for the failure text). */
  readonly positional: (args: z.output<I>) => PyValue[];
  /** The body, with Python semantics; a throw is a Python exception. */
  readonly run: (args: z.output<I>) => PyValue;
}

/**
 * Defines one tool. Calls are exclusive (not concurrency-safe): the Python value of a call is kept
 * between the body and the rendering of its content, and rendering happens before the next
 * exclusive call starts (so `8100.0` renders as a float although JSON carries 8100).
 */
export function pyTool<I extends z.ZodType, O extends z.ZodType>(init: PyToolInit<I, O>): ToolDefinition<z.output<I>, JsonValue, z.input<I>> {
  let last: PyValue | undefined;
  return defineTool({
    name: init.name,
    description: init.description,
    input: init.input,
    output: init.output,
    ...(init.examples ? { examples: init.examples } : {}),
    execute: (args: z.output<I>) => {
      let value: PyValue;
      try {
        value = init.run(args);
      } catch {
        throw new Error(failureText(init.name, init.positional(args)));
      }
      last = value;
      return toJson(value) as never;
    },
    renderContent: (value: JsonValue) => {
      const rendered = last !== undefined ? renderToolOutput(last) : typeof value === 'string' ? value : JSON.stringify(value);
      last = undefined;
      return rendered;
    },
  }) as unknown as ToolDefinition<z.output<I>, JsonValue, z.input<I>>;
}
