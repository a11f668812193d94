// The Python SDK the model programs against under a Python runtime: TypedDicts for every tool's
// arguments and results, `async def` stubs on a `Tools` class, and `ToolCallError`. Sorted and
// byte-stable like the TypeScript SDK (render-sdk.ts). A tool takes ONE dict of arguments,
// `await tools.read({"path": "a.txt"})`: argument names are JSON keys and many are not Python
// identifiers (`from`, `content-type`), which a dict spells as-is and keyword arguments cannot;
// it is also the TypeScript SDK's shape (docs/python-runtime.md, "The SDK").

import type { ToolSchema } from '../../../tools/types.js';
import { renderPythonType, pascalCase, type PythonDeclaration } from './json-schema-to-python.js';
import { isPythonIdentifier, pyComment, pyDocstring, pyString, PYTHON_KEYWORDS } from './python-syntax.js';
import { argsMayBeOmitted } from '../../../codegen/schema-access.js';
import { allocateName, compareCodeUnits } from '../../../codegen/ts-syntax.js';

/** Names the SDK declares itself (and typing's), which generated names never take. */
const SDK_NAMES = [
  'Any', 'Awaitable', 'Callable', 'Dict', 'List', 'Literal', 'NotRequired', 'TypedDict', 'Union', 'overload',
  'JsonValue', 'ToolCallError', 'Tools', 'tools', 'sdk', 'Sdk', 'SdkError', 'SdkSearchHit',
];

const HEADER = [
  '# The tools of this session, as a Python module of declarations (the runtime defines them).',
  'from typing import Any, Awaitable, Callable, Dict, List, Literal, NotRequired, TypedDict, Union, overload',
  '',
  'JsonValue = Union[str, int, float, bool, None, List["JsonValue"], Dict[str, "JsonValue"]]',
].join('\n');

const TOOL_CALL_ERROR = [
  'class ToolCallError(Exception):',
  '    """A failed tool call raises this; str(error) says why."""',
  '    # The name of the tool whose call failed.',
  '    tool_name: str',
  '    # The stable error code, e.g. "INVALID_ARGS", "TOOL_FAILED", "PERMISSION_DENIED", "UNKNOWN_TOOL".',
  '    code: str',
].join('\n');

/**
 * Renders the Python SDK for `tools`: `JsonValue`, one `<Name>Args` / `<Name>Output` per tool (a
 * TypedDict when the schema is an object with properties), `ToolCallError`, the `Tools` class and
 * `tools: Tools`. Tools are sorted by name (code-unit order); of two tools with one name the first
 * in that order is kept.
 */
export function renderPythonSdk(tools: readonly ToolSchema[]): string {
  const sorted = [...tools].sort((a, b) => compareCodeUnits(a.name, b.name)).filter((t, i, all) => i === 0 || all[i - 1]!.name !== t.name);
  const used = new Set<string>([...SDK_NAMES, ...PYTHON_KEYWORDS]);
  const declarations: PythonDeclaration[] = [];
  const methods: string[] = [];
  const items: GetItemEntry[] = [];

  for (const tool of sorted) {
    const prefix = allocateName(pascalCase(tool.name, 'Tool'), used);
    used.delete(prefix);
    const args = renderPythonType(tool.inputSchema, `${prefix}Args`, { used, declarations });
    const output = tool.outputSchema === undefined ? 'JsonValue' : renderPythonType(tool.outputSchema, `${prefix}Output`, { used, declarations });
    used.add(prefix);
    const param = argsMayBeOmitted(tool.inputSchema) ? `args: ${args} = ...` : `args: ${args}`;
    if (isMethodName(tool.name)) {
      methods.push(`    async def ${tool.name}(self, ${param}, /) -> ${output}:\n${pyDocstring(tool.description, '        ') || '        """(no description)"""\n'}        ...`);
    } else {
      items.push({ name: tool.name, args, output, description: tool.description });
    }
  }

  const classBody = [...methods, ...getItem(items)];
  const toolsClass = [
    'class Tools:',
    '    """Each tool as an async method taking one dict of arguments; tools["name"] reaches every tool."""',
    '',
    classBody.length === 0 ? '    pass' : classBody.join('\n\n'),
  ].join('\n');
  const sections = [HEADER, ...declarations.map((d) => d.text), TOOL_CALL_ERROR, toolsClass, 'tools: Tools'];
  return `${sections.join('\n\n\n')}\n`;
}

interface GetItemEntry {
  readonly name: string;
  readonly args: string;
  readonly output: string;
  readonly description: string;
}

/**
 * `tools["any-name"]` typed per name: overloads when several names need it. Identifier tools are
 * reachable this way too at run time; only the names a dot cannot reach are listed.
 */
function getItem(items: readonly GetItemEntry[]): string[] {
  const signature = (item: GetItemEntry) =>
    `${pyComment(item.description, '    ')}    def __getitem__(self, name: Literal[${pyString(item.name)}]) -> Callable[[${item.args}], Awaitable[${item.output}]]: ...`;
  const generic = 'def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]: ...';
  if (items.length === 0) return [`    ${generic}`];
  if (items.length === 1) return [signature(items[0]!)];
  return [...items.map((item) => signature(item).replace(/    def __getitem__/, '    @overload\n    def __getitem__')), `    ${generic}`];
}

/** A name that works as `tools.name`: an identifier, not a keyword, not a dunder of the class. */
function isMethodName(name: string): boolean {
  return isPythonIdentifier(name) && !name.startsWith('__');
}


/** What the prompt declares for `tools` and `sdk` when it shows the tool index instead of the SDK. */
export const PYTHON_SDK_BINDING_DECLARATION = [
  'from typing import Awaitable, Callable, Dict, List, TypedDict, Union',
  '',
  'JsonValue = Union[str, int, float, bool, None, List["JsonValue"], Dict[str, "JsonValue"]]',
  '',
  '',
  'class ToolCallError(Exception):',
  '    """A failed tool call raises this; str(error) says why."""',
  '    tool_name: str',
  '    code: str',
  '',
  '',
  'class Tools:',
  '    """Every tool of the index: await tools.name({...}) or await tools["name"]({...}), described or not."""',
  '    def __getattr__(self, name: str) -> Callable[[Dict[str, JsonValue]], Awaitable[JsonValue]]: ...',
  '    def __getitem__(self, name: str) -> Callable[[Dict[str, JsonValue]], Awaitable[JsonValue]]: ...',
  '',
  '',
  'class SdkSearchHit(TypedDict):',
  '    name: str',
  '    # The server of a "<server>__<tool>" name, else "other".',
  '    group: str',
  '    # How a call is written, e.g. "({ path, head? })".',
  '    signature: str',
  '    # The first sentence of its description.',
  '    summary: str',
  '',
  '',
  'class Sdk:',
  '    """Read-only help about the tools, answered without calling any tool."""',
  '    async def describe(self, names: Union[str, List[str]], /) -> str:',
  '        """Python declarations (argument and return types, full descriptions) of the named tools."""',
  '        ...',
  '',
  '    async def search(self, query: Union[str, Dict[str, JsonValue]], /) -> List[SdkSearchHit]:',
  '        """Tools matching the words of a query, best first: a string, or {"query": "...", "limit": 10}."""',
  '        ...',
  '',
  '',
  'class SdkError(Exception):',
  '    """A bad sdk call (unknown tool name, malformed query) raises this."""',
  '    method: str',
  '    code: str',
  '',
  '',
  'tools: Tools',
  'sdk: Sdk',
].join('\n');
