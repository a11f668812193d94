type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

interface ToolArgsMap {
  "bash": {
    /** The command line, run with bash -c. */
    command: string;
    /** A short label of what the command does, for logs and UIs. */
    description?: string;
    /** Deadline in milliseconds (default 120000); the command and its processes are killed when it passes. */
    timeout_ms?: number;
  };
  "edit": {
    /** File to edit, relative to the workspace or absolute. */
    path: string;
    /** The exact text to replace (without the line-number prefix that read shows). */
    old_string: string;
    /** The text to put in its place; must differ from old_string. */
    new_string: string;
    /** Replace every occurrence instead of requiring exactly one. Default false. */
    replace_all?: boolean;
  };
  "glob": {
    /** Glob pattern, e.g. "src/**\/*.{ts,tsx}". */
    pattern: string;
    /** Directory to search from, relative to the workspace or absolute. Default: the workspace. */
    path?: string;
    /** Also list files that .gitignore excludes, and node_modules. Default false. */
    no_ignore?: boolean;
    /** Skip this many files of the sorted list. Default 0. */
    offset?: number;
    /** Return at most this many files. Default and maximum 1000. */
    limit?: number;
  };
  "grep": {
    /** JavaScript regular expression (no slashes or flags), e.g. "function\s+load". */
    pattern: string;
    /** Directory or file to search, relative to the workspace or absolute. Default: the workspace. */
    path?: string;
    /** Only search files matching this glob (syntax as for the glob tool). Without a "/" it matches file names at any depth ("*.ts"); with one, paths relative to path ("src/**\/*.ts"). */
    glob?: string;
    /** Match letters case-insensitively. Default false. */
    ignore_case?: boolean;
    /** Also search files that .gitignore excludes, and node_modules. Default false. */
    no_ignore?: boolean;
    /** Skip this many matches (counted over all files in order) before the first one returned. Default 0. */
    offset?: number;
    /** Return at most this many matches. Default and maximum 500. */
    limit?: number;
  };
  "read": {
    /** File to read, relative to the workspace or absolute. */
    path: string;
    /** First line to return, 1-based. Default 1. */
    offset?: number;
    /** Number of lines to return. Default 2000. */
    limit?: number;
  };
  "skill": {
    /** The skill's name, as listed under "Skills" in the system prompt. */
    name: string;
  };
  "task": {
    /** A short label for the task (3-6 words), shown in logs and progress. */
    description: string;
    /** The complete task for the subagent, with everything it needs to know and what to answer. */
    prompt: string;
    /** The preset the subagent is built from, by name: ptc (the default: it writes programs), standard (native tools), minimal, or a preset of this workspace. */
    preset?: string;
  };
  "todo": {
    /** The complete list, in order. */
    todos: {
      /** What to do, as a short imperative sentence. */
      content: string;
      /** pending, in_progress (at most one item) or completed. */
      status: "pending" | "in_progress" | "completed";
    }[];
  };
  "web_fetch": {
    /** The http:// or https:// URL to fetch. */
    url: string;
    /** Return HTML as its source instead of converting it to markdown. Default false. */
    raw?: boolean;
  };
  "workflow_save": {
    /** Lowercase letters, digits, _ (e.g. count_todos). */
    name: string;
    /** What it does and when to use it. */
    description: string;
    /** JSON Schema of the input, `type: object`. */
    input: Record<string, unknown>;
    /** The program body. */
    code: string;
    language?: "typescript" | "python";
    scope?: "workspace" | "user";
    /** Replace an existing one. */
    overwrite?: boolean;
  };
  "write": {
    /** File to write, relative to the workspace or absolute. */
    path: string;
    /** The complete new contents of the file (UTF-8). */
    content: string;
  };
}

interface ToolOutputMap {
  "bash": {
    exitCode: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
    timedOut: boolean;
    truncated: boolean;
    memoryLimited?: boolean;
    spill?: {
      stdout?: {
        path: string;
        bytes: number;
        totalBytes: number;
      };
      stderr?: {
        path: string;
        bytes: number;
        totalBytes: number;
      };
    };
    sandbox: {
      backend: "bwrap" | "node-permission" | "none";
      enforced: {
        fs: "full" | "partial" | "none";
        network: "full" | "partial" | "none";
        process: "full" | "partial" | "none";
      };
    };
  };
  "edit": {
    /** The file, relative to the workspace when inside it. */
    path: string;
    /** How many occurrences were replaced. */
    replacements: number;
  };
  "glob": {
    /** The pattern as given. */
    pattern: string;
    /** The directory searched, relative to the workspace when inside it. */
    path: string;
    /** Matching files, sorted, relative to the workspace when inside it, from offset on. */
    files: string[];
    /** Files of the sorted list skipped before the first one returned. */
    offset: number;
    /** All files that match. */
    totalFiles: number;
    /** True when more files follow these: call again with offset + files.length. */
    truncated: boolean;
  };
  "grep": {
    /** The pattern as given. */
    pattern: string;
    /** What was searched, relative to the workspace when inside it. */
    path: string;
    /** Matching lines in file order, from offset on. */
    matches: {
      /** The file, relative to the workspace when inside it. */
      path: string;
      /** Line number, 1-based. */
      line: number;
      /** The line, shortened when very long. */
      text: string;
    }[];
    /** Matches skipped before the first one returned. */
    offset: number;
    /** Matching lines in all searched files. */
    totalMatches: number;
    /** True when more matches follow these: call again with offset + matches.length. */
    truncated: boolean;
    /** Files with at least one matching line. */
    filesWithMatches: number;
    /** Files whose contents were searched. */
    filesSearched: number;
    /** Files skipped as binary or too large. */
    filesSkipped: number;
  };
  "read": {
    /** The file, relative to the workspace when inside it. */
    path: string;
    /** The raw text of lines startLine..endLine, joined by newlines (no numbers). */
    content: string;
    /** Number of the first line returned (1-based). */
    startLine: number;
    /** Number of the last line returned; startLine - 1 when none. */
    endLine: number;
    /** Number of lines in the whole file. */
    totalLines: number;
    /** True when lines after endLine were not returned. */
    truncated: boolean;
  };
  "skill": {
    name: string;
    /** The skill's folder (absolute); relative paths in the body are relative to it. */
    dir: string;
    /** The skill's instructions (SKILL.md without its front matter). */
    body: string;
    /** Absolute paths of the files beside SKILL.md, readable with `read`. */
    files: string[];
    /** Files not listed (past the limit). */
    moreFiles: number;
  };
  "task": string;
  "todo": {
    /** The list as now kept. */
    todos: {
      /** What to do, as a short imperative sentence. */
      content: string;
      /** pending, in_progress (at most one item) or completed. */
      status: "pending" | "in_progress" | "completed";
    }[];
    /** Number of completed items. */
    completed: number;
    /** Number of items. */
    total: number;
  };
  "web_fetch": {
    /** The URL finally fetched, after redirects. */
    url: string;
    /** The HTTP status of the final answer (2xx). */
    status: number;
    /** The Content-Type header of the answer, or "" when it had none. */
    contentType: string;
    /** The text: converted markdown for HTML (unless raw), else the body as text. */
    content: string;
    /** True when the body or the text was cut at the size limits. */
    truncated: boolean;
  };
  "workflow_save": {
    name: string;
    tool: string;
    file: string;
    created: boolean;
    note: string;
  };
  "write": {
    /** The file, relative to the workspace when inside it. */
    path: string;
    /** Bytes written (UTF-8). */
    bytes: number;
    /** True when the file did not exist before. */
    created: boolean;
  };
}

/** A failed tool call rejects with this error; `message` says why. */
declare class ToolCallError extends Error {
  /** The name of the tool whose call failed. */
  readonly toolName: string;
  /** The stable error code, e.g. "INVALID_ARGS", "TOOL_FAILED", "PERMISSION_DENIED", "UNKNOWN_TOOL". */
  readonly code: string;
}

declare const tools: {
  /** Run one shell command with bash -c in the workspace and return its exit code, stdout and stderr. It runs under the same sandbox as run_code programs: it can read and write the workspace, read system files, and nothing else unless allowed; network is off unless allowed. Nothing persists between calls (no shell state, no background jobs): everything the command started is killed when it ends or times out. Each of stdout and stderr keeps at most 20000 bytes (start and end); in an agent session a longer stream is saved whole to a file the result names, to read in parts with read. */
  "bash"(args: ToolArgsMap["bash"]): Promise<ToolOutputMap["bash"]>;
  /** Replace exact text in a file. `old_string` must match the file exactly, whitespace and indentation included, and exactly once unless `replace_all` is true; include a few surrounding lines to make it unique. Read the file first to see its exact text. To create or rewrite a whole file, use write. */
  "edit"(args: ToolArgsMap["edit"]): Promise<ToolOutputMap["edit"]>;
  /** Find files whose path matches a glob pattern. The pattern is matched against paths relative to `path` (default: the workspace) and supports `*` (any characters except /), `?` (one character), `[abc]`, `[a-z]`, `[!a-z]` (character classes), `{a,b}` (alternatives) and `**` as a whole segment (any number of directories). So `*.ts` matches only directly in `path`, `**\/*.ts` at any depth. Case-sensitive; hidden files are included; respects .gitignore files (as git does) and skips .git and node_modules unless the pattern names them; `no_ignore: true` lists ignored files and node_modules too. Returns files (not directories), sorted, relative to the workspace, with their total; at most 1000 per call: when truncated is true, call again with offset = offset + the number of files returned. */
  "glob"(args: ToolArgsMap["glob"]): Promise<ToolOutputMap["glob"]>;
  /** Search file contents for a JavaScript regular expression, line by line (a match cannot span lines). Returns each matching line with its file (relative to the workspace) and line number, in file order, with the total number of matching lines. Searches `path` (a directory or one file; default: the workspace); `glob` limits which files are searched. Respects .gitignore files (nested ones, negation and directory patterns, as git does) and skips .git and node_modules unless glob names them; `no_ignore: true` searches ignored files and node_modules too. Binary files and files over 5 MiB are skipped. At most 500 matches per call: when truncated is true, call again with offset = offset + the number of matches returned. */
  "grep"(args: ToolArgsMap["grep"]): Promise<ToolOutputMap["grep"]>;
  /** Read a text file. Shows its lines numbered like `cat -n` (line number, tab, text; lines longer than 2000 characters shortened); the value's `content` holds the raw text of those lines. Returns at most 2000 lines from `offset`; when more remain, the result says which offset to continue with. Directories, binary files and files over 10 MiB are refused: use glob or grep for those. */
  "read"(args: ToolArgsMap["read"]): Promise<ToolOutputMap["read"]>;
  /** Load a skill by name: returns its instructions (follow them) and the absolute paths of the files beside it, which `read` can open. The skills available are listed under "Skills" in the system prompt. */
  "skill"(args: ToolArgsMap["skill"]): Promise<ToolOutputMap["skill"]>;
  /** Hand a self-contained task to a subagent and get its final answer back as text. The subagent starts fresh: it sees only `prompt`, not this conversation, so say everything it needs (files, goal, what to report). It works in the same workspace under the same sandbox policy, with its own tools (`preset`, default ptc: it writes TypeScript programs) and its own session log. Use it for searches or investigations whose details you do not need in your own context. `description` is a short label (3-6 words). Subagents cannot start subagents. */
  "task"(args: ToolArgsMap["task"]): Promise<ToolOutputMap["task"]>;
  /** Keep your plan for the task as a checklist the user can follow. Send the whole list every time (it replaces the previous one): each item has `content` and `status` (pending, in_progress or completed). Keep at most one item in_progress: mark it before you start on it and completed as soon as it is done. Use it for tasks of several steps; skip it for a single quick action. */
  "todo"(args: ToolArgsMap["todo"]): Promise<ToolOutputMap["todo"]>;
  /** Fetch an http or https URL and return its content as text. HTML pages are converted to readable markdown (headings, paragraphs, [links](url), lists, code blocks, tables; scripts and styles dropped) unless `raw` is true; JSON and plain text come back as they are. Redirects are followed. A long page is cut and marked truncated. An answer other than HTTP 2xx is an error. Needs network access (the user passes --allow-net). */
  "web_fetch"(args: ToolArgsMap["web_fetch"]): Promise<ToolOutputMap["web_fetch"]>;
  /** Save a program that worked as the tool workflow_<name> of later sessions. `code`: a run_code program body that reads `input` (typed by the `input` JSON Schema) and returns the result. Checked, then the user is asked. `scope`: workspace (.ptc/workflows, default) or user. */
  "workflow_save"(args: ToolArgsMap["workflow_save"]): Promise<ToolOutputMap["workflow_save"]>;
  /** Write a whole file: create it (and any missing parent directories) or replace its contents. The write is atomic and keeps an existing file's permissions. To change part of a file, use edit. */
  "write"(args: ToolArgsMap["write"]): Promise<ToolOutputMap["write"]>;
};
