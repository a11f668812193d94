// The Python pack's words: the `tools:sdk` section's instructions in Python's idiom, its example
// program and run_code's description (docs/python-runtime.md, "The SDK").

import type { JsonValue } from '../../json.js';
import type { ProgramExecution } from '../../ptc-runtime/types.js';
import type { PackPrompt, PromptExample } from '../language-pack.js';
import { stateLine, stateSentence } from '../prompt-lines.js';
import { isPythonIdentifier, pyString } from './sdk/python-syntax.js';

export const pythonPrompt: PackPrompt = {
  instructions: (execution) => [
    '`code` is the BODY of an async Python function (Python 3, standard library only): top-level `await` and `return` work; do not call `asyncio.run`.',
    '- Call tools with `await tools.name({"arg": value})`: one dict of arguments, keys exactly as declared; a name that is not an identifier works as `await tools["my-tool"]({...})`.',
    '- A failed tool call raises `ToolCallError`, whose `tool_name` names the tool and `code` is the error code; catch it when the program should go on.',
    '- Only what the program returns, or prints (`print`, `logging`), comes back to you: return or print just what you need, not raw tool output. Return JSON-serialisable values (dict, list, str, int, float, bool, None).',
    '- Independent read-only calls may overlap under `asyncio.gather`; calls that change things run alone, in the order you make them; sequence dependent work with `await`.',
    stateLine(execution, 'variables, functions and imports'),
    '- The declarations below are bindings that exist only inside programs, not tools you can call directly.',
  ],
  indexInstructions: (count) => [
    `- There are ${count} tools, too many to declare here: the tool index at the end lists each one's name, argument names and the first sentence of its description, grouped by server.`,
    '- Before calling a tool whose arguments or result you are not sure of, get its declaration inside a program: `print(await sdk.describe(["name1", "name2"]))` (Python declarations: `TypedDict`s and `async def` stubs, as in a full SDK), then use it in your next program.',
    '- To find tools for a task, `return await sdk.search("a few words", limit=10)` lists matching tools, best first, with their signatures and summaries.',
    '- `sdk` calls are answered at once and are not tool calls; every tool works as `await tools.name({...})` whether or not you described it.',
  ],
  exampleProgram({ tool, args }: PromptExample): string {
    const member = isPythonIdentifier(tool) && !tool.startsWith('__') ? `.${tool}` : `[${pyString(tool)}]`;
    return `result = await tools${member}(${pyLiteral(args)})\nreturn result`;
  },
  runCodeDescription: (execution: ProgramExecution) =>
    'Run a Python program that calls the tools of this session. Arguments: `code` (required) — the BODY of an ' +
    'async Python function, using `await tools.<name>({...})` as declared in the SDK of the system prompt; ' +
    '`description` (required) — a short label of what the program does. Only what the program returns or prints ' +
    `comes back to you; ${stateSentence(execution)}`,
  codeArgumentDescription: 'The program: the body of an async Python function.',
};

/** A one-line Python literal of a JSON value. */
function pyLiteral(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(pyLiteral).join(', ')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([key, v]) => `${pyString(key)}: ${pyLiteral(v)}`).join(', ')}}`;
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return value === null ? 'None' : JSON.stringify(value);
}
