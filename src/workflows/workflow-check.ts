// Whether a workflow's program compiles against the current SDK (docs/workflows.md, "Checks"):
// TypeScript is stripped and compiled exactly as run_code's runtime does it (amaro, then vm.Script),
// Python is parsed and compiled by python3's own `ast`/`compile` on the host (nothing runs), and in
// both every literal `tools.<name>` must name a tool of the session. Types are erased, not checked:
// no TypeScript compiler ships with the package.

import { execFile } from 'node:child_process';
import { parse, type Node } from 'acorn';
import { didYouMean } from '../did-you-mean.js';
import { WORKFLOW_PYTHON_CHECK_TIMEOUT_MS } from './limits.js';
import type { PtcLanguage } from '../ptc-runtime/types.js';
import { PROGRAM_FILENAME, stripProgram } from '../languages/typescript/runtime/strip.js';
import { detectPython } from '../languages/python/runtime/detect.js';
import { WORKFLOW_TOOL_PREFIX } from './workflow-file.js';

/** A `tools.<name>` the program names, with its line in the file. */
export interface ToolReference {
  readonly name: string;
  readonly line: number;
}

export type CodeCheck =
  | { readonly ok: true; readonly refs: readonly ToolReference[] }
  | { readonly ok: false; readonly line: number; readonly message: string };

/** The name the program's input is bound to. */
export const INPUT_GLOBAL = 'input';

/**
 * The program as it runs: `input` is bound on the header's first line, which is a comment, so no
 * line moves. `json` is the input's JSON text (a placeholder `null` for the check).
 */
export function withInput(source: string, language: PtcLanguage, json: string): string {
  const text = source.replace(/^\uFEFF/, '');
  // The JSON text itself as a string literal: valid in both languages, parsed by the program's own JSON.
  const literal = JSON.stringify(json);
  const binding =
    language === 'python'
      ? `${INPUT_GLOBAL} = __import__("json").loads(${literal}); `
      : `const ${INPUT_GLOBAL} = JSON.parse(${literal}); `;
  return binding + text;
}

export async function checkWorkflowCode(source: string, language: PtcLanguage): Promise<CodeCheck> {
  return language === 'python' ? checkPython(withInput(source, language, 'null')) : checkTypeScript(withInput(source, language, 'null'));
}

function checkTypeScript(program: string): CodeCheck {
  const stripped = stripProgram(program);
  if (!stripped.ok) {
    const at = new RegExp(`^${PROGRAM_FILENAME}:(\\d+)(?::\\d+)?(?: \\(end of program\\))?: `).exec(stripped.message);
    return { ok: false, line: at ? Number(at[1]) : 1, message: at ? stripped.message.slice(at[0].length) : stripped.message };
  }
  let tree: Node;
  try {
    tree = parse(stripped.code, { ecmaVersion: 'latest', locations: true });
  } catch {
    // vm.Script accepted it; acorn lags behind V8 only for the newest syntax. Nothing to check then.
    return { ok: true, refs: [] };
  }
  const refs: ToolReference[] = [];
  visit(tree, (node) => {
    if (node.type !== 'MemberExpression') return;
    const member = node as Node & { object: Node & { name?: string }; property: Node & { name?: string; value?: unknown }; computed: boolean };
    if (member.object.type !== 'Identifier' || member.object.name !== 'tools') return;
    const name = member.computed ? (typeof member.property.value === 'string' ? member.property.value : undefined) : member.property.name;
    // The stripped wrapper puts the program one line down.
    if (name !== undefined) refs.push({ name, line: (member.loc?.start.line ?? 2) - 1 });
  });
  return { ok: true, refs };
}

function visit(node: unknown, on: (node: Node) => void): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) visit(item, on);
    return;
  }
  const record = node as Record<string, unknown>;
  if (typeof record['type'] !== 'string') return;
  on(node as Node);
  for (const key of Object.keys(record)) if (key !== 'loc') visit(record[key], on);
}

/**
 * Parses and compiles the program the way the Python bootstrap does (its body inside an `async def`),
 * reading the text on stdin; prints the first syntax error or the `tools.<name>` references.
 */
const PYTHON_CHECK = `
import ast, json, sys
src = sys.stdin.read()
try:
    tree = ast.parse(src, filename="workflow", mode="exec")
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fn = ast.AsyncFunctionDef(name="__workflow__", args=args, body=tree.body or [ast.Pass()], decorator_list=[], returns=None, type_comment=None)
    if "type_params" in ast.AsyncFunctionDef._fields:
        fn.type_params = []
    module = ast.Module(body=[fn], type_ignores=[])
    ast.fix_missing_locations(module)
    compile(module, "workflow", "exec", dont_inherit=True)
except SyntaxError as e:
    print(json.dumps({"ok": False, "line": e.lineno or 1, "message": "invalid syntax: %s" % (e.msg,)}))
    sys.exit(0)
refs = []
for node in ast.walk(tree):
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "tools":
        refs.append({"name": node.attr, "line": node.lineno})
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "tools":
        key = node.slice
        key = getattr(key, "value", key) if type(key).__name__ == "Index" else key
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            refs.append({"name": key.value, "line": node.lineno})
print(json.dumps({"ok": True, "refs": refs}))
`;

async function checkPython(program: string): Promise<CodeCheck> {
  let executable: string;
  try {
    executable = (await detectPython('python3')).executable;
  } catch (error) {
    return { ok: false, line: 1, message: `cannot be checked or run: ${error instanceof Error ? error.message : String(error)}` };
  }
  return new Promise((resolve) => {
    // Isolated, no site-packages, no .pyc, an empty environment: the text is only parsed.
    const child = execFile(
      executable,
      ['-I', '-S', '-B', '-X', 'utf8', '-c', PYTHON_CHECK],
      { env: {}, timeout: WORKFLOW_PYTHON_CHECK_TIMEOUT_MS, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout) => {
        try {
          const out = JSON.parse(stdout) as { ok: boolean; line?: number; message?: string; refs?: ToolReference[] };
          resolve(out.ok ? { ok: true, refs: out.refs ?? [] } : { ok: false, line: out.line ?? 1, message: out.message ?? 'invalid syntax' });
        } catch {
          resolve({ ok: false, line: 1, message: `python3 could not check it (${error?.message.split('\n')[0] ?? 'no answer'}); run it once with \`ptc workflows run\` to see why` });
        }
      },
    );
    child.stdin?.end(program);
  });
}

/**
 * The first reference the session cannot answer: an unknown tool, or another workflow (a workflow's
 * program does not see workflows: no recursion). `<server>__<tool>` names pass unchecked: their MCP
 * server may connect after the check.
 */
export function referenceProblem(refs: readonly ToolReference[], visible: readonly string[]): { line: number; message: string } | undefined {
  const known = new Set(visible);
  for (const ref of refs) {
    if (ref.name.startsWith(WORKFLOW_TOOL_PREFIX)) {
      return { line: ref.line, message: `calls tools.${ref.name}: a workflow cannot call workflows; call the tools that workflow calls instead` };
    }
    if (known.has(ref.name) || ref.name.includes('__')) continue;
    const tools = visible.filter((n) => !n.startsWith(WORKFLOW_TOOL_PREFIX));
    return {
      line: ref.line,
      message: `calls tools.${ref.name}, which is not a tool of this preset.${didYouMean(ref.name, tools)} Use one of: ${tools.join(', ') || '(none)'}`,
    };
  }
  return undefined;
}
