// Type-checks in-memory TypeScript files with the compiler API, for tests that must prove generated
// text compiles (or, with a deliberate mistake, does not).

import path from 'node:path';
import ts from 'typescript';

export interface CompileResult {
  /**
   * One entry per diagnostic, `file(line,col): TS<code>: message`, followed by indented
   * `file(line,col): message` lines for its related information (e.g. where the expected type
   * is declared). Paths of the in-memory files are as given. Empty means the files compile.
   */
  readonly diagnostics: string[];
}

/** Virtual directory the in-memory files live in; diagnostics show paths relative to it. */
const ROOT = '/__compile_ts__';

const DEFAULT_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
};

/** Parsed lib files, shared by every compile in the process: parsing them dominates a small check. */
const libCache = new Map<string, ts.SourceFile>();

/**
 * Type-checks `files` (name → source, e.g. `{ 'sdk.d.ts': sdk, 'main.ts': program }`) together as
 * one program. Defaults: strict, ES2022 target and lib, no `@types`, no emit; `options` overrides
 * them. Files without imports or exports are global scripts and see each other's declarations.
 * Lib files are read from the installed `typescript` package; nothing else touches the disk.
 */
export function compileTs(files: Record<string, string>, options: ts.CompilerOptions = {}): CompileResult {
  const compilerOptions: ts.CompilerOptions = { ...DEFAULT_OPTIONS, ...options };
  const memory = new Map<string, string>();
  for (const [name, text] of Object.entries(files)) memory.set(path.posix.join(ROOT, name), text);

  const host = ts.createCompilerHost(compilerOptions, true);
  const realGetSourceFile = host.getSourceFile.bind(host);
  const realFileExists = host.fileExists.bind(host);
  const realReadFile = host.readFile.bind(host);
  host.getCurrentDirectory = () => ROOT;
  host.fileExists = (name) => memory.has(name) || realFileExists(name);
  host.readFile = (name) => memory.get(name) ?? realReadFile(name);
  host.writeFile = () => {};
  host.getSourceFile = (name, languageVersion, onError, shouldCreate) => {
    const text = memory.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, languageVersion, true);
    const cacheKey = `${JSON.stringify(languageVersion)}:${name}`;
    let file = libCache.get(cacheKey);
    if (!file) {
      file = realGetSourceFile(name, languageVersion, onError, shouldCreate);
      if (file) libCache.set(cacheKey, file);
    }
    return file;
  };

  const program = ts.createProgram({ rootNames: [...memory.keys()], options: compilerOptions, host });
  const diagnostics = ts.getPreEmitDiagnostics(program).map(formatDiagnostic);
  return { diagnostics };
}

function formatDiagnostic(d: ts.Diagnostic): string {
  const text = (m: string | ts.DiagnosticMessageChain) => ts.flattenDiagnosticMessageText(m, '\n');
  const related = (d.relatedInformation ?? []).map((r) => `\n  ${where(r)}${text(r.messageText)}`);
  return `${where(d)}TS${d.code}: ${text(d.messageText)}${related.join('')}`;
}

/** `file(line,col): `, or '' for a diagnostic without a location (e.g. a bad compiler option). */
function where(d: ts.DiagnosticRelatedInformation): string {
  if (!d.file || d.start === undefined) return '';
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const name = d.file.fileName.startsWith(`${ROOT}/`) ? d.file.fileName.slice(ROOT.length + 1) : d.file.fileName;
  return `${name}(${line + 1},${character + 1}): `;
}
