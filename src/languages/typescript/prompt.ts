// The TypeScript pack's words: the `tools:sdk` section's instructions, its example program and
// run_code's description (docs/ptc-mode.md).

import { propertyKey, quoteString } from '../../codegen/ts-syntax.js';
import type { JsonValue } from '../../json.js';
import type { ProgramExecution } from '../../ptc-runtime/types.js';
import type { PackPrompt, PromptExample } from '../language-pack.js';
import { stateLine, stateSentence } from '../prompt-lines.js';

/** run_code's description under a stateless TypeScript runtime (the built-in tool's own). */
export const RUN_CODE_DESCRIPTION =
  'Run a TypeScript program that calls the tools of this session. Arguments: `code` (required) — the ' +
  'BODY of an async function, using `await tools.<name>(args)` as declared in the SDK of the system ' +
  'prompt; `description` (required) — a short label of what the program does. Only what the program ' +
  'returns or logs with console.log comes back to you; each run starts with fresh state.';

export const typescriptPrompt: PackPrompt = {
  instructions: (execution) => [
    '`code` is the BODY of an async TypeScript function:',
    '- Call tools with `await tools.name(args)`; a name that is not an identifier works as `await tools["my-tool"](args)`.',
    '- A failed tool call rejects with a `ToolCallError` whose `toolName` names the tool; catch it when the program should go on.',
    '- Only what the program returns, or logs with `console.log`, comes back to you: return or log just what you need, not raw tool output.',
    '- Independent read-only calls may overlap under `Promise.all`; calls that change things run alone, in the order you make them; sequence dependent work with `await`.',
    stateLine(execution, 'variables and functions'),
    '- Types are erased before the program runs; enums, namespaces and parameter properties are not supported.',
    '- The declarations below are bindings that exist only inside programs, not tools you can call directly.',
  ],
  indexInstructions: (count) => [
    `- There are ${count} tools, too many to declare here: the tool index at the end lists each one's name, argument names and the first sentence of its description, grouped by server.`,
    '- Before calling a tool whose arguments or result you are not sure of, get its TypeScript declaration inside a program: `console.log(await sdk.describe(["name1", "name2"]))`, then use it in your next program.',
    '- To find tools for a task, `return await sdk.search({ query: "a few words", limit: 10 })` lists matching tools, best first, with their signatures and summaries.',
    '- `sdk` calls are answered at once and are not tool calls; every tool works as `await tools.<name>(args)` whether or not you described it.',
  ],
  exampleProgram({ tool, args }: PromptExample): string {
    const member = propertyKey(tool) === tool ? `.${tool}` : `[${quoteString(tool)}]`;
    return `const result = await tools${member}(${literal(args)});\nreturn result;`;
  },
  runCodeDescription: (execution: ProgramExecution) =>
    execution === 'stateless' ? RUN_CODE_DESCRIPTION : RUN_CODE_DESCRIPTION.replace('each run starts with fresh state.', stateSentence(execution)),
};

/** A one-line TypeScript literal of a JSON value, keys bare where they can be. */
function literal(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([key, v]) => `${propertyKey(key)}: ${literal(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return typeof value === 'string' ? quoteString(value) : JSON.stringify(value);
}
