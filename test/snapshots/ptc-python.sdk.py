# The tools of this session, as a Python module of declarations (the runtime defines them).
from typing import Any, Awaitable, Callable, Dict, List, Literal, NotRequired, TypedDict, Union, overload

JsonValue = Union[str, int, float, bool, None, List["JsonValue"], Dict[str, "JsonValue"]]


class BashArgs(TypedDict):
    # The command line, run with bash -c.
    command: str
    # A short label of what the command does, for logs and UIs.
    description: NotRequired[str]
    # Deadline in milliseconds (default 120000); the command and its processes are killed when it passes.
    timeout_ms: NotRequired[int]


class BashOutput_Spill_Stdout(TypedDict):
    path: str
    bytes: int
    totalBytes: int


class BashOutput_Spill_Stderr(TypedDict):
    path: str
    bytes: int
    totalBytes: int


class BashOutput_Spill(TypedDict):
    stdout: NotRequired[BashOutput_Spill_Stdout]
    stderr: NotRequired[BashOutput_Spill_Stderr]


class BashOutput_Sandbox_Enforced(TypedDict):
    fs: Literal["full", "partial", "none"]
    network: Literal["full", "partial", "none"]
    process: Literal["full", "partial", "none"]


class BashOutput_Sandbox(TypedDict):
    backend: Literal["bwrap", "node-permission", "none"]
    enforced: BashOutput_Sandbox_Enforced


class BashOutput(TypedDict):
    exitCode: Union[int, None]
    signal: Union[str, None]
    stdout: str
    stderr: str
    timedOut: bool
    truncated: bool
    memoryLimited: NotRequired[bool]
    spill: NotRequired[BashOutput_Spill]
    sandbox: BashOutput_Sandbox


class EditArgs(TypedDict):
    # File to edit, relative to the workspace or absolute.
    path: str
    # The exact text to replace (without the line-number prefix that read shows).
    old_string: str
    # The text to put in its place; must differ from old_string.
    new_string: str
    # Replace every occurrence instead of requiring exactly one. Default false.
    replace_all: NotRequired[bool]


class EditOutput(TypedDict):
    # The file, relative to the workspace when inside it.
    path: str
    # How many occurrences were replaced.
    replacements: int


class GlobArgs(TypedDict):
    # Glob pattern, e.g. "src/**/*.{ts,tsx}".
    pattern: str
    # Directory to search from, relative to the workspace or absolute. Default: the workspace.
    path: NotRequired[str]
    # Also list files that .gitignore excludes, and node_modules. Default false.
    no_ignore: NotRequired[bool]
    # Skip this many files of the sorted list. Default 0.
    offset: NotRequired[int]
    # Return at most this many files. Default and maximum 1000.
    limit: NotRequired[int]


class GlobOutput(TypedDict):
    # The pattern as given.
    pattern: str
    # The directory searched, relative to the workspace when inside it.
    path: str
    # Matching files, sorted, relative to the workspace when inside it, from offset on.
    files: List[str]
    # Files of the sorted list skipped before the first one returned.
    offset: int
    # All files that match.
    totalFiles: int
    # True when more files follow these: call again with offset + files.length.
    truncated: bool


class GrepArgs(TypedDict):
    # JavaScript regular expression (no slashes or flags), e.g. "function\s+load".
    pattern: str
    # Directory or file to search, relative to the workspace or absolute. Default: the workspace.
    path: NotRequired[str]
    # Only search files matching this glob (syntax as for the glob tool). Without a "/" it matches file names at any depth ("*.ts"); with one, paths relative to path ("src/**/*.ts").
    glob: NotRequired[str]
    # Match letters case-insensitively. Default false.
    ignore_case: NotRequired[bool]
    # Also search files that .gitignore excludes, and node_modules. Default false.
    no_ignore: NotRequired[bool]
    # Skip this many matches (counted over all files in order) before the first one returned. Default 0.
    offset: NotRequired[int]
    # Return at most this many matches. Default and maximum 500.
    limit: NotRequired[int]


class GrepOutput_MatchesItem(TypedDict):
    # The file, relative to the workspace when inside it.
    path: str
    # Line number, 1-based.
    line: int
    # The line, shortened when very long.
    text: str


class GrepOutput(TypedDict):
    # The pattern as given.
    pattern: str
    # What was searched, relative to the workspace when inside it.
    path: str
    # Matching lines in file order, from offset on.
    matches: List[GrepOutput_MatchesItem]
    # Matches skipped before the first one returned.
    offset: int
    # Matching lines in all searched files.
    totalMatches: int
    # True when more matches follow these: call again with offset + matches.length.
    truncated: bool
    # Files with at least one matching line.
    filesWithMatches: int
    # Files whose contents were searched.
    filesSearched: int
    # Files skipped as binary or too large.
    filesSkipped: int


class ReadArgs(TypedDict):
    # File to read, relative to the workspace or absolute.
    path: str
    # First line to return, 1-based. Default 1.
    offset: NotRequired[int]
    # Number of lines to return. Default 2000.
    limit: NotRequired[int]


class ReadOutput(TypedDict):
    # The file, relative to the workspace when inside it.
    path: str
    # The raw text of lines startLine..endLine, joined by newlines (no numbers).
    content: str
    # Number of the first line returned (1-based).
    startLine: int
    # Number of the last line returned; startLine - 1 when none.
    endLine: int
    # Number of lines in the whole file.
    totalLines: int
    # True when lines after endLine were not returned.
    truncated: bool


class SkillArgs(TypedDict):
    # The skill's name, as listed under "Skills" in the system prompt.
    name: str


class SkillOutput(TypedDict):
    name: str
    # The skill's folder (absolute); relative paths in the body are relative to it.
    dir: str
    # The skill's instructions (SKILL.md without its front matter).
    body: str
    # Absolute paths of the files beside SKILL.md, readable with `read`.
    files: List[str]
    # Files not listed (past the limit).
    moreFiles: int


class TaskArgs(TypedDict):
    # A short label for the task (3-6 words), shown in logs and progress.
    description: str
    # The complete task for the subagent, with everything it needs to know and what to answer.
    prompt: str
    # The preset the subagent is built from, by name: ptc (the default: it writes programs), standard (native tools), minimal, or a preset of this workspace.
    preset: NotRequired[str]


class TodoArgs_TodosItem(TypedDict):
    # What to do, as a short imperative sentence.
    content: str
    # pending, in_progress (at most one item) or completed.
    status: Literal["pending", "in_progress", "completed"]


class TodoArgs(TypedDict):
    # The complete list, in order.
    todos: List[TodoArgs_TodosItem]


class TodoOutput_TodosItem(TypedDict):
    # What to do, as a short imperative sentence.
    content: str
    # pending, in_progress (at most one item) or completed.
    status: Literal["pending", "in_progress", "completed"]


class TodoOutput(TypedDict):
    # The list as now kept.
    todos: List[TodoOutput_TodosItem]
    # Number of completed items.
    completed: int
    # Number of items.
    total: int


class WebFetchArgs(TypedDict):
    # The http:// or https:// URL to fetch.
    url: str
    # Return HTML as its source instead of converting it to markdown. Default false.
    raw: NotRequired[bool]


class WebFetchOutput(TypedDict):
    # The URL finally fetched, after redirects.
    url: str
    # The HTTP status of the final answer (2xx).
    status: int
    # The Content-Type header of the answer, or "" when it had none.
    contentType: str
    # The text: converted markdown for HTML (unless raw), else the body as text.
    content: str
    # True when the body or the text was cut at the size limits.
    truncated: bool


class WorkflowSaveArgs(TypedDict):
    # Lowercase letters, digits, _ (e.g. count_todos).
    name: str
    # What it does and when to use it.
    description: str
    # JSON Schema of the input, `type: object`.
    input: Dict[str, JsonValue]
    # The program body.
    code: str
    language: NotRequired[Literal["typescript", "python"]]
    scope: NotRequired[Literal["workspace", "user"]]
    # Replace an existing one.
    overwrite: NotRequired[bool]


class WorkflowSaveOutput(TypedDict):
    name: str
    tool: str
    file: str
    created: bool
    note: str


class WriteArgs(TypedDict):
    # File to write, relative to the workspace or absolute.
    path: str
    # The complete new contents of the file (UTF-8).
    content: str


class WriteOutput(TypedDict):
    # The file, relative to the workspace when inside it.
    path: str
    # Bytes written (UTF-8).
    bytes: int
    # True when the file did not exist before.
    created: bool


class ToolCallError(Exception):
    """A failed tool call raises this; str(error) says why."""
    # The name of the tool whose call failed.
    tool_name: str
    # The stable error code, e.g. "INVALID_ARGS", "TOOL_FAILED", "PERMISSION_DENIED", "UNKNOWN_TOOL".
    code: str


class Tools:
    """Each tool as an async method taking one dict of arguments; tools["name"] reaches every tool."""

    async def bash(self, args: BashArgs, /) -> BashOutput:
        """Run one shell command with bash -c in the workspace and return its exit code, stdout and stderr. It runs under the same sandbox as run_code programs: it can read and write the workspace, read system files, and nothing else unless allowed; network is off unless allowed. Nothing persists between calls (no shell state, no background jobs): everything the command started is killed when it ends or times out. Each of stdout and stderr keeps at most 20000 bytes (start and end); in an agent session a longer stream is saved whole to a file the result names, to read in parts with read."""
        ...

    async def edit(self, args: EditArgs, /) -> EditOutput:
        """Replace exact text in a file. `old_string` must match the file exactly, whitespace and indentation included, and exactly once unless `replace_all` is true; include a few surrounding lines to make it unique. Read the file first to see its exact text. To create or rewrite a whole file, use write."""
        ...

    async def glob(self, args: GlobArgs, /) -> GlobOutput:
        """Find files whose path matches a glob pattern. The pattern is matched against paths relative to `path` (default: the workspace) and supports `*` (any characters except /), `?` (one character), `[abc]`, `[a-z]`, `[!a-z]` (character classes), `{a,b}` (alternatives) and `**` as a whole segment (any number of directories). So `*.ts` matches only directly in `path`, `**/*.ts` at any depth. Case-sensitive; hidden files are included; respects .gitignore files (as git does) and skips .git and node_modules unless the pattern names them; `no_ignore: true` lists ignored files and node_modules too. Returns files (not directories), sorted, relative to the workspace, with their total; at most 1000 per call: when truncated is true, call again with offset = offset + the number of files returned."""
        ...

    async def grep(self, args: GrepArgs, /) -> GrepOutput:
        """Search file contents for a JavaScript regular expression, line by line (a match cannot span lines). Returns each matching line with its file (relative to the workspace) and line number, in file order, with the total number of matching lines. Searches `path` (a directory or one file; default: the workspace); `glob` limits which files are searched. Respects .gitignore files (nested ones, negation and directory patterns, as git does) and skips .git and node_modules unless glob names them; `no_ignore: true` searches ignored files and node_modules too. Binary files and files over 5 MiB are skipped. At most 500 matches per call: when truncated is true, call again with offset = offset + the number of matches returned."""
        ...

    async def read(self, args: ReadArgs, /) -> ReadOutput:
        """Read a text file. Shows its lines numbered like `cat -n` (line number, tab, text; lines longer than 2000 characters shortened); the value's `content` holds the raw text of those lines. Returns at most 2000 lines from `offset`; when more remain, the result says which offset to continue with. Directories, binary files and files over 10 MiB are refused: use glob or grep for those."""
        ...

    async def skill(self, args: SkillArgs, /) -> SkillOutput:
        """Load a skill by name: returns its instructions (follow them) and the absolute paths of the files beside it, which `read` can open. The skills available are listed under "Skills" in the system prompt."""
        ...

    async def task(self, args: TaskArgs, /) -> str:
        """Hand a self-contained task to a subagent and get its final answer back as text. The subagent starts fresh: it sees only `prompt`, not this conversation, so say everything it needs (files, goal, what to report). It works in the same workspace under the same sandbox policy, with its own tools (`preset`, default ptc: it writes TypeScript programs) and its own session log. Use it for searches or investigations whose details you do not need in your own context. `description` is a short label (3-6 words). Subagents cannot start subagents."""
        ...

    async def todo(self, args: TodoArgs, /) -> TodoOutput:
        """Keep your plan for the task as a checklist the user can follow. Send the whole list every time (it replaces the previous one): each item has `content` and `status` (pending, in_progress or completed). Keep at most one item in_progress: mark it before you start on it and completed as soon as it is done. Use it for tasks of several steps; skip it for a single quick action."""
        ...

    async def web_fetch(self, args: WebFetchArgs, /) -> WebFetchOutput:
        """Fetch an http or https URL and return its content as text. HTML pages are converted to readable markdown (headings, paragraphs, [links](url), lists, code blocks, tables; scripts and styles dropped) unless `raw` is true; JSON and plain text come back as they are. Redirects are followed. A long page is cut and marked truncated. An answer other than HTTP 2xx is an error. Needs network access (the user passes --allow-net)."""
        ...

    async def workflow_save(self, args: WorkflowSaveArgs, /) -> WorkflowSaveOutput:
        """Save a program that worked as the tool workflow_<name> of later sessions. `code`: a run_code program body that reads `input` (typed by the `input` JSON Schema) and returns the result. Checked, then the user is asked. `scope`: workspace (.ptc/workflows, default) or user."""
        ...

    async def write(self, args: WriteArgs, /) -> WriteOutput:
        """Write a whole file: create it (and any missing parent directories) or replace its contents. The write is atomic and keeps an existing file's permissions. To change part of a file, use edit."""
        ...

    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]: ...


tools: Tools
