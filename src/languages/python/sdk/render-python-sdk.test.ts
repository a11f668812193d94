import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../../tools/types.js';
import { renderPythonSdk } from './render-python-sdk.js';
import { pyDocstring, pyString } from './python-syntax.js';

const read: ToolSchema = {
  name: 'read',
  description: 'Read a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'The file.' }, offset: { type: 'integer' } }, required: ['path'] },
  outputSchema: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
};
const convert: ToolSchema = {
  name: 'convert-length',
  description: 'Convert a length.',
  inputSchema: { type: 'object', properties: { value: { type: 'number' }, from: { enum: ['m', 'km'] } }, required: ['value', 'from'] },
};
const ping: ToolSchema = { name: 'ping', description: '', inputSchema: { type: 'object', properties: {} } };

describe('renderPythonSdk', () => {
  it('declares TypedDicts, async def stubs taking one dict, and ToolCallError with tool_name and code', () => {
    const text = renderPythonSdk([read]);
    expect(text).toContain('class ReadArgs(TypedDict):\n    # The file.\n    path: str\n    offset: NotRequired[int]');
    expect(text).toContain('class ReadOutput(TypedDict):\n    content: str');
    expect(text).toContain('    async def read(self, args: ReadArgs, /) -> ReadOutput:\n        """Read a file."""\n        ...');
    expect(text).toContain('class ToolCallError(Exception):');
    expect(text).toMatch(/    tool_name: str\n[\s\S]*    code: str/);
    expect(text.endsWith('tools: Tools\n')).toBe(true);
  });

  it('reaches names that are not identifiers (or are keywords) through tools["name"], keys through the functional TypedDict', () => {
    const text = renderPythonSdk([convert, { ...ping, name: 'import' }]);
    expect(text).toContain('ConvertLengthArgs = TypedDict("ConvertLengthArgs", {\n    "value": float,\n    "from": Literal["m", "km"],\n})');
    expect(text).toContain('    @overload\n    def __getitem__(self, name: Literal["convert-length"]) -> Callable[[ConvertLengthArgs], Awaitable[JsonValue]]: ...');
    expect(text).toContain('def __getitem__(self, name: Literal["import"])');
    expect(text).not.toContain('async def import');
  });

  it('lets arguments be omitted when nothing is required', () => {
    expect(renderPythonSdk([ping])).toContain('async def ping(self, args: Dict[str, JsonValue] = ..., /) -> JsonValue:');
  });

  it('is sorted, byte-stable and independent of input order', () => {
    const a = renderPythonSdk([read, convert, ping]);
    expect(renderPythonSdk([ping, convert, read])).toBe(a);
    expect(a.indexOf('ConvertLengthArgs')).toBeLessThan(a.indexOf('ReadArgs'));
    expect(a.indexOf('async def ping')).toBeLessThan(a.indexOf('async def read'));
  });

  it('gives two tools whose names fold to one prefix distinct declarations', () => {
    const text = renderPythonSdk([read, { ...read, name: 'Read' }]);
    expect(text).toContain('class ReadArgs(TypedDict)');
    expect(text).toContain('class Read2Args(TypedDict)');
    expect(text).toContain('async def Read(self, args: ReadArgs, /)');
    expect(text).toContain('async def read(self, args: Read2Args, /)');
  });
});

describe('Python syntax helpers', () => {
  it('docstrings cannot be closed early by the text', () => {
    expect(pyDocstring('ends with a quote"', '')).toBe('"""ends with a quote\\""""\n');
    expect(pyDocstring('""" and \\ inside', '')).toBe('"""\\"\\"" and \\\\ inside"""\n');
    expect(pyDocstring('  \n ', '')).toBe('');
  });

  it('string literals escape what Python would read differently', () => {
    expect(pyString('a"b\\c\nd\u2028')).toBe('"a\\"b\\\\c\\nd\\u2028"');
  });
});
