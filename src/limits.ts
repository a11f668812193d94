// Every limit of the harness in one place, unit in the name. Config may override them (validated at load).

/** Tool results longer than this are cut by the built-in tools, with a note saying so. */
export const MAX_TOOL_OUTPUT_CHARS = 50_000;
/**
 * A result of a call the model made whose content is longer than this is spilled: written whole to
 * the session's spill directory, the model getting a preview and the path (docs/sessions.md, "Spill").
 */
export const MAX_TOOL_RESULT_CHARS = 50_000;
/** Characters of a spilled text's first lines the preview shows. */
export const SPILL_PREVIEW_HEAD_CHARS = 8_000;
/** Characters of a spilled text's last lines the preview shows. */
export const SPILL_PREVIEW_TAIL_CHARS = 4_000;
/** One spill file holds at most this many bytes (the start of a longer text). */
export const MAX_SPILL_FILE_BYTES = 32 * 1024 * 1024;
/** All spill files of one session together, in bytes; past it results are cut as before spilling existed. */
export const MAX_SPILL_SESSION_BYTES = 256 * 1024 * 1024;
/** Characters per token of the context meter's estimate (docs/compaction.md): a cheap, deliberately high count. */
export const ESTIMATE_CHARS_PER_TOKEN = 4;
/** Compaction starts when the next request's estimate passes this fraction of the context window (`compactThreshold`, `--compact-threshold`). */
export const DEFAULT_COMPACT_THRESHOLD = 0.8;
/** Pruning keeps the tool results of this many latest steps whole (fewer only when that is not enough). */
export const PRUNE_KEEP_STEPS = 3;
/** Tool results shorter than this many characters are never pruned (a stub would save nothing). */
export const PRUNE_MIN_RESULT_CHARS = 600;
/** A summary keeps the responses of this many latest steps as they are. */
export const SUMMARY_KEEP_STEPS = 2;
/** The transcript sent to be summarised is cut (head and tail kept) to this fraction of the window. */
export const SUMMARY_INPUT_WINDOW_FRACTION = 0.6;
/** A summary longer than this fraction of the window fails the compaction (too long to help). */
export const MAX_SUMMARY_WINDOW_FRACTION = 0.2;
/** `read` returns at most this many lines when no limit is given. */
export const DEFAULT_READ_LIMIT_LINES = 2_000;
/** Lines longer than this are shortened in `read` and `grep` output. */
export const MAX_LINE_CHARS = 2_000;
/** `read` refuses files larger than this; use offset/limit on a smaller slice or grep instead. */
export const MAX_READ_FILE_BYTES = 10 * 1024 * 1024;
/** A file tool reports a change's old and new text (`tools/file-change`, the diffs of ptc acp) only when each is at most this many bytes. */
export const MAX_FILE_CHANGE_TEXT_BYTES = 1024 * 1024;
/** `glob` returns at most this many paths per call (its `limit`, and the default); `offset` pages on. */
export const MAX_GLOB_RESULTS = 1_000;
/** `grep` returns at most this many matching lines per call (its `limit`, and the default); `offset` pages on. */
export const MAX_GREP_MATCHES = 500;
/** A `.gitignore` larger than this is not read (its rules do not apply). */
export const MAX_GITIGNORE_BYTES = 1024 * 1024;
/** `grep` skips files larger than this. */
export const MAX_GREP_FILE_BYTES = 5 * 1024 * 1024;
/** The file tools treat a file as binary when a NUL byte occurs in its first this-many bytes. */
export const BINARY_SNIFF_BYTES = 8 * 1024;
/** A `glob` pattern may expand its `{a,b}` alternatives into at most this many patterns. */
export const MAX_GLOB_BRACE_EXPANSIONS = 256;
/** The file tools follow at most this many symbolic links while resolving one path (as the kernel's ELOOP bound). */
export const MAX_SYMLINK_HOPS = 40;
/** `str_replace_editor` shows this many unchanged lines before and after an edit in its snippet. */
export const EDITOR_SNIPPET_CONTEXT_LINES = 4;
/** `str_replace_editor view` of a directory lists at most this many entries. */
export const MAX_EDITOR_LISTING_ENTRIES = 1_000;
/** Previous file contents `str_replace_editor` keeps for `undo_edit`, all files together, in UTF-16 code units; the oldest go first. */
export const MAX_EDITOR_HISTORY_CHARS = 32 * 1024 * 1024;
/** `web_fetch` gives up on a URL (all redirects and the body included) after this long: TIMEOUT. */
export const WEB_FETCH_TIMEOUT_MS = 30_000;
/** `web_fetch` reads at most this many (decompressed) body bytes, then stops and marks the result truncated. */
export const MAX_WEB_FETCH_BYTES = 2 * 1024 * 1024;
/** `web_fetch` returns at most this many characters of converted text, marking the result truncated. */
export const MAX_WEB_FETCH_CHARS = 50_000;
/** `web_fetch` follows at most this many redirects from the URL it was given. */
export const MAX_WEB_FETCH_REDIRECTS = 5;
/** Characters of an error page that `web_fetch` quotes in the message of a non-2xx answer. */
export const WEB_FETCH_ERROR_EXCERPT_CHARS = 500;
/** `web_search` gives up on one backend request (answer and body) after this long: TIMEOUT. */
export const WEB_SEARCH_TIMEOUT_MS = 15_000;
/** `web_search` returns at most this many results, whatever `count` asks (Brave's API caps `count` at 20 too). */
export const MAX_WEB_SEARCH_RESULTS = 20;
/** `web_search` returns this many results when `count` is not given. */
export const DEFAULT_WEB_SEARCH_RESULTS = 8;
/** One result's snippet, in characters; longer ones are cut and end with an ellipsis. */
export const MAX_WEB_SEARCH_SNIPPET_CHARS = 400;
/** One result's title, in characters. */
export const MAX_WEB_SEARCH_TITLE_CHARS = 200;
/** A result URL longer than this (in characters) is dropped rather than cut: a cut URL would not fetch. */
export const MAX_WEB_SEARCH_URL_CHARS = 2_048;
/** `web_search`'s `sites` filter names at most this many domains (each one is a `site:` term of the query). */
export const MAX_WEB_SEARCH_SITES = 10;
/** Bytes of a backend's answer read at most; a bigger answer is TOOL_FAILED (a search answer is a few KiB). */
export const MAX_WEB_SEARCH_RESPONSE_BYTES = 4 * 1024 * 1024;
/** The HTML converter of `web_fetch` nests elements at most this deep; deeper ones join their ancestor. */
export const MAX_HTML_DEPTH = 256;
/** Lists, quotes and tables nested deeper than this are converted as plain lines (keeps conversion linear). */
export const MAX_HTML_STRUCTURE_NESTING = 12;
/** `todo` accepts at most this many items in one list. */
export const MAX_TODO_ITEMS = 100;
/** One `todo` item's text, in characters. */
export const MAX_TODO_CONTENT_CHARS = 1_000;
/** Longest plan_propose `markdown`, in characters (docs/plan-mode.md). */
export const MAX_PLAN_MARKDOWN_CHARS = 20_000;
/** Longest comment a person sends a plan back with, in characters (docs/plan-mode.md). */
export const MAX_PLAN_COMMENT_CHARS = 4_000;
/** Rounds a goal may take when `--max-rounds` is not given (docs/goals.md). */
export const DEFAULT_GOAL_MAX_ROUNDS = 10;
/** Deadline of a goal's check command, in ms (like a `bash` call with the largest timeout_ms). */
export const GOAL_CHECK_TIMEOUT_MS = 600_000;
/** Characters of `goal_done` evidence kept in the log. */
export const MAX_GOAL_EVIDENCE_CHARS = 8_000;
/** AGENTS.md (or CLAUDE.md) enters the system prompt up to this many bytes, then is cut with a note. */
export const MAX_WORKSPACE_INSTRUCTIONS_BYTES = 32 * 1024;

// The code runtime (src/languages/typescript/runtime). Each is overridable through createNodeRuntime options.

/** A program's wall-time deadline (includes awaited binding calls and the child's start) when none is given. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** The smallest deadline a caller may ask for. */
export const MIN_TIMEOUT_MS = 100;
/** The largest deadline a caller may ask for. */
export const MAX_TIMEOUT_MS = 600_000;
/**
 * The output ledger of one run: UTF-8 bytes of all log lines (plus one per line) and the returned
 * value's JSON. What the model sees of it is bounded by MAX_TOOL_RESULT_CHARS; the rest is spilled.
 */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/** One control-channel frame (one JSON line) in either direction, in bytes. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** Binding calls a program may have in flight at once; further calls wait in the child. */
export const MAX_PENDING_CALLS = 1_000;
/** Serialized arguments of the binding calls in flight at once, in bytes. */
export const MAX_PENDING_ARGS_BYTES = 64 * 1024 * 1024;
/** Source text of one program, in bytes. */
export const MAX_PROGRAM_BYTES = 1024 * 1024;
/** V8 old-space limit of a program's process (`--max-old-space-size`), in MiB. */
export const DEFAULT_MEMORY_MB = 512;
/** Memory the whole process tree may hold above the heap limit (`limits.memoryMb`) before MEMORY_LIMIT, in MiB. */
export const RSS_HEADROOM_MB = 256;
/** How often the host samples a run's memory (the group's OOM kill count, or the tree's resident size). */
export const RSS_WATCHDOG_INTERVAL_MS = 10;
/** The child's real stdout/stderr kept by the host (the tail, for crash messages), in bytes per stream. */
export const MAX_STDIO_CAPTURE_BYTES = 64 * 1024;
/** Warm children kept ready per policy. */
export const DEFAULT_POOL_SIZE = 2;
/**
 * Warm children one policy's pool may grow to while programs run back to back (about 8-9 MiB of the
 * machine's memory each; docs/runtime-lifecycle.md, "The pool"). Above ten, so a burst of ten
 * programs in a row finds a warm child for each once the pool has grown to it.
 */
export const DEFAULT_POOL_MAX_SIZE = 12;
/** A warm child unused for this long is ended (not replaced until the policy is used again). */
export const DEFAULT_POOL_IDLE_MS = 30_000;
/** Distinct policies the warm pool keeps children for; the least recently used is dropped first. */
export const MAX_POOL_POLICIES = 4;
/**
 * In-memory execution: a kept process nobody ran a program in for this long is ended; the next
 * program of its conversation starts fresh and is told so (docs/in-memory-mode.md).
 */
export const DEFAULT_MEMORY_IDLE_MS = 10 * 60_000;
/** After the child exits on its own, how long the host keeps reading its control channel for last frames. */
export const EXIT_DRAIN_GRACE_MS = 250;
/** `bash` keeps at most this many bytes of each of stdout and stderr (half from the start, half from the end). */
export const MAX_BASH_STREAM_BYTES = 20_000;
/** `bash` deadline when the call gives no `timeout_ms`. */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Bounds of a `bash` call's `timeout_ms`. */
export const MIN_BASH_TIMEOUT_MS = 100;
export const MAX_BASH_TIMEOUT_MS = 600_000;
/**
 * Memory a shell command's whole process tree may hold (both `bash` tools), in MiB. Larger than a
 * program's: a command may be a build or a test run (docs/minimal-tools.md, "Memory").
 */
export const DEFAULT_BASH_MEMORY_MB = 4096;
/** The smallest memory limit the shells accept, in MiB (below it bash itself may not start). */
export const MIN_BASH_MEMORY_MB = 16;
/**
 * After a `bash` command exits, how long its output pipes may stay open (held by a process that
 * escaped the kill, possible only without bwrap) before the tool stops reading them.
 */
export const BASH_PIPE_DRAIN_MS = 2_000;
/**
 * The persistent `bash` keeps reading (and dropping) the output pipes of at most this many earlier
 * calls whose background jobs still hold them; past that the oldest is closed and its writers get
 * EPIPE (docs/minimal-tools.md, "Private channels").
 */
export const MAX_BASH_LINGERING_OUTPUTS = 32;
/** How long the persistent `bash` waits for its private copy of bash to run `:` once, before each shell starts. */
export const SHELL_PROBE_TIMEOUT_MS = 10_000;
/** Size of the private `/tmp` tmpfs of a bwrap sandbox (tmpfs pages are RAM: a memory group counts them, an RSS sum does not). */
export const SANDBOX_TMP_MAX_BYTES = 512 * 1024 * 1024;
/** Size of the private `/dev/shm` tmpfs of a bwrap sandbox. */
export const SANDBOX_SHM_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Directories of the writable roots a sandbox launch looks through for nested `.git`/`.ptc` entries to
 * bind read-only (docs/sandbox.md, "Protected paths"); past it, deeper repositories go unprotected.
 */
export const PROTECTED_SCAN_MAX_DIRS = 1_000;
/** How long one walk for nested protected entries of a root is reused by later launches, in ms. */
export const PROTECTED_SCAN_CACHE_MS = 5_000;
/**
 * Tasks alive at once in one sandbox (processes and their threads: the kernel's pids controller counts
 * both; an idle Node process has about 7-11), enforced with a pids cgroup where one can be made.
 */
export const MAX_SANDBOX_TASKS = 512;
/** Processes remembered per launch for the final kill (descendants sampled from /proc). */
export const MAX_TRACKED_DESCENDANTS = 1_024;
/**
 * The highest fd number (a count, not bytes) at which a descriptor the host inherited without
 * close-on-exec can be covered with /dev/null in a confined spawn (docs/sandbox.md, "Inherited
 * descriptors"); a leak above it makes the launch fail rather than pass it on.
 */
export const MAX_COVERED_INHERITED_FD = 4_095;
/** How long the end of a launch waits for its killed processes to vanish (pid namespace teardown). */
export const PROCESS_TREE_VANISH_WAIT_MS = 2_000;
/**
 * Settling by freezing (docs/runtime-lifecycle.md, "Settling"): how long the freeze may take before the
 * settle falls back to killing and watching the namespace; a Node child freezes in 0.1-1 ms here.
 */
export const FREEZE_WAIT_MS = 50;
/** A frozen, killed sandbox is thawed (and so torn down) once no run has ended for this long. */
export const FROZEN_THAW_QUIET_MS = 150;
/** At most this many frozen sandboxes wait for that pause; beyond it the oldest is thawed at once. */
export const MAX_FROZEN_WAITING = 12;
/** How often `bash` samples its command's descendants from /proc where no pid namespace holds them. */
export const PROCESS_TREE_SAMPLE_MS = 10;
/** JSON nesting of one control frame (the frame object itself is level 1); deeper frames are PROTOCOL. */
export const MAX_FRAME_DEPTH = 256;
/** JSON nesting of any value the harness serialises for a program or a tool (args, results, values). */
export const MAX_JSON_DEPTH = 256;
/** Reply bytes queued for a child that does not read its control channel; beyond it the run ends. */
export const MAX_QUEUED_REPLY_BYTES = 16 * 1024 * 1024;
/** Any error message from a program or a runtime that reaches the model or the log, in UTF-8 bytes. */
export const MAX_ERROR_MESSAGE_BYTES = 8 * 1024;
/** Files `grep` hands a worker thread in one message to open, read and search (docs/grep-regex.md). */
export const GREP_BATCH_FILES = 256;
/** Batches of one `grep` call being searched at once, each in its own worker thread. */
export const GREP_BATCHES_IN_FLIGHT = 2;
/** `grep` deadline when the harness gives none: a pattern that backtracks this long ends as TIMEOUT. */
export const DEFAULT_GREP_TIMEOUT_MS = 30_000;
/** Regex worker threads kept alive (idle, unref'd) for `grep` between calls (docs/grep-regex.md). */
export const GREP_REGEX_WARM_WORKERS = 2;
/** Regex worker threads busy at once; further matches queue (their deadline keeps running while they wait). */
export const GREP_REGEX_MAX_WORKERS = 4;
/** A regex worker beyond GREP_REGEX_WARM_WORKERS ends after being idle this long. */
export const GREP_REGEX_IDLE_MS = 30_000;

// Model calls (src/llm). Each is overridable through the retry options of `withModelRetry`.

/** Retries of one model request after a retryable failure (HTTP 408/429/5xx, a dropped connection), before any output. */
export const LLM_MAX_RETRIES = 3;
/** The first backoff before retrying a model request; it doubles with each further retry. */
export const LLM_RETRY_BASE_MS = 500;
/** The longest wait between two attempts of a model request, also the cap on a server's `retry-after`. */
export const LLM_RETRY_MAX_MS = 8_000;

// The session log (src/session).

/**
 * One session-log line, in bytes (LF included). A larger event is still written: its longest strings
 * are cut with a marker (and, failing that, its large fields emptied), noted in the line's `truncated`.
 */
export const MAX_SESSION_LINE_BYTES = 8 * 1024 * 1024;
/** Strings at most this long are never cut when a session-log line is shrunk, in UTF-16 code units. */
export const MIN_SESSION_TRUNCATED_STRING_CHARS = 256;
/** Fresh session ids tried when the first is taken (two sessions started in the same second). */
export const SESSION_ID_ATTEMPTS = 5;
/** `ptc sessions show` cuts each result, argument or text block to this many characters for display. */
export const SESSION_SHOW_MAX_CHARS = 2_000;

/** Schema subschemas nested deeper than this render as `unknown` in generated types. */
export const MAX_SCHEMA_DEPTH = 40;
/** Subschemas (and enum/const literals) visited per schema document beyond this render as `unknown`. */
export const MAX_SCHEMA_NODES = 10_000;
/**
 * Longest chain of generated type aliases that name each other directly (`type A = B; type B = C`).
 * The TypeScript compiler resolves such a chain recursively and overflows its stack near a thousand.
 */
export const MAX_DIRECT_REF_CHAIN = 100;
/** Schema arrays (enum, required, prefixItems, ...) longer than this are ignored by codegen. */
export const MAX_SCHEMA_ARRAY_ITEMS = 10_000;

// Presets (src/presets, docs/presets.md).
/** A preset file larger than this is refused before parsing (presets are short lists of rows). */
export const MAX_PRESET_FILE_BYTES = 256 * 1024;

// Workspace trust (src/trust, docs/presets.md "Trust", docs/security.md "Workspace trust").
/** Files one workspace's configuration may span (preset files, plugin files, package manifests and entries); more is CONFIG. */
export const MAX_TRUST_FILES = 200;
/** One file hashed into a workspace's trust digest, in bytes; a larger one is CONFIG (nothing that big is reviewed). */
export const MAX_TRUST_FILE_BYTES = 4 * 1024 * 1024;
/** `$PTC_HOME/trust.json`, in bytes; a larger one is read as empty (nothing trusted) with a note. */
export const MAX_TRUST_STORE_BYTES = 4 * 1024 * 1024;
/** A plugin file's text shown in plugin_try's approval request, in bytes; the rest is cut with a note (docs/creator.md). */
export const MAX_PLUGIN_TRY_SHOWN_BYTES = 32 * 1024;

/** Files (count) followed from one plugin file through its local imports when checking it for a change between turns (docs/plugin-reload.md). */
export const MAX_PLUGIN_GRAPH_FILES = 200;

// Skills (src/skills, docs/skills.md).
/** The skills section of the system prompt (names and descriptions), in UTF-8 bytes; skills past it are summarised as a count. */
export const MAX_SKILLS_PROMPT_BYTES = 6 * 1024;
/** A SKILL.md larger than this is skipped with a CONFIG warning, in bytes (a body is loaded whole into the context). */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Files beside a SKILL.md that the `skill` tool lists (the rest are counted); files, not bytes. */
export const MAX_SKILL_FILES_LISTED = 100;
/** Directory levels below a skill folder that the `skill` tool walks when listing its files. */
export const MAX_SKILL_FILES_DEPTH = 4;
/** A skill's `name`, in characters (the Agent Skills rule; docs/skills.md). */
export const MAX_SKILL_NAME_CHARS = 64;
/** A skill's `description`, in characters (the Agent Skills rule; docs/skills.md). */
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;

// Workflows (src/workflows, docs/workflows.md).
/** A workflow file larger than this is reported and not registered, in bytes (its text is a program and its header). */
export const MAX_WORKFLOW_FILE_BYTES = 256 * 1024;
/** A workflow's `name`, in characters: the tool `workflow_<name>` stays within the 64 characters providers allow for a function name. */
export const MAX_WORKFLOW_NAME_CHARS = 48;
/** A workflow's `description`, in characters (it is the tool's description). */
export const MAX_WORKFLOW_DESCRIPTION_CHARS = 1024;
/** Workflow files read from one folder; the rest are reported and not registered. Files, not bytes. */
export const MAX_WORKFLOWS_PER_DIR = 200;
/** Workflow files checked at once when a harness assembles (each Python file is one python3 process); files, not bytes. */
export const WORKFLOW_CHECKS_AT_ONCE = 4;
/** The Python syntax check of a workflow (one python3 parsing the text), in ms. */
export const WORKFLOW_PYTHON_CHECK_TIMEOUT_MS = 15_000;

// Subagents: the `task` tool (src/agent/subagent.ts, docs/subagents.md).
/** Model requests a subagent may make before it stops without an answer (TOOL_FAILED in the parent). */
export const SUBAGENT_MAX_STEPS = 30;
/** How deep subagents nest: 1 lets a top-level agent start subagents and refuses `task` inside them. */
export const MAX_SUBAGENT_DEPTH = 1;

// Large catalogs: the ptc prompt's tool index and the programs' `sdk` binding (src/ptc/catalog-index.ts, docs/large-catalogs.md).
/** A catalog of this many visible tools or fewer always gets full declarations in the ptc prompt. */
export const MAX_TOOLS_ALWAYS_DECLARED = 20;
/** Above this many visible tools the ptc prompt holds the tool index instead of the full SDK. */
export const MAX_DECLARED_SDK_TOOLS = 40;
/** Above this many characters of full SDK declarations the ptc prompt holds the tool index instead. */
export const MAX_DECLARED_SDK_CHARS = 24_000;
/** Characters of a description's first sentence kept on a tool's index line (cut with "…"). */
export const MAX_INDEX_SUMMARY_CHARS = 160;
/** Argument names shown on a tool's index line; more are summarised as "…". */
export const MAX_INDEX_ARGUMENT_NAMES = 12;
/** Tool names one `sdk.describe` call accepts. */
export const MAX_SDK_DESCRIBE_NAMES = 100;
/** Results of `sdk.search` when no limit is given. */
export const DEFAULT_SDK_SEARCH_LIMIT = 10;
/** The largest limit `sdk.search` accepts. */
export const MAX_SDK_SEARCH_LIMIT = 50;
/** Characters of an `sdk.search` query. */
export const MAX_SDK_QUERY_CHARS = 1_000;

// The MCP server: `ptc mcp serve` (src/mcp/server, docs/mcp-server.md).
/** One JSON-RPC message a client may send on stdin, in bytes (a program is at most MAX_PROGRAM_BYTES, JSON-escaped). */
export const MAX_MCP_SERVER_MESSAGE_BYTES = 8 * 1024 * 1024;
/** A sub-call's `content` in a served run_code result's `dispatches`, in characters; longer ones are cut with a note. */
export const MAX_MCP_DISPATCH_CONTENT_CHARS = 8_000;
/** All of a served run_code result's `dispatches` as JSON, in bytes; further dispatches are counted in `dispatchesOmitted`. */
export const MAX_MCP_DISPATCHES_BYTES = 4 * 1024 * 1024;

// Configuration files (src/config, docs/config.md).
/** A user or project config file larger than this is refused unread (it holds settings and rules, nothing more). */
export const MAX_CONFIG_FILE_BYTES = 256 * 1024;
/** How long saving a rule waits for another process's save of the same file (its lock), in ms. */
export const CONFIG_SAVE_LOCK_WAIT_MS = 5_000;
/** A save lock older than this is left over from a crashed process and is removed, in ms. */
export const CONFIG_SAVE_LOCK_STALE_MS = 30_000;

// The MCP client: the `mcp` row (src/mcp/client, docs/mcp.md).
/** A `--mcp-config` file larger than this is refused unread (it lists servers, nothing more). */
export const MAX_MCP_CONFIG_FILE_BYTES = 256 * 1024;
/** Time one MCP server has to start, answer `initialize` and list its tools; beyond it the row fails (CONFIG). */
export const MCP_SERVER_START_TIMEOUT_MS = 30_000;
/** One MCP tool call's deadline (restarted by the server's progress notifications); the program's own deadline still applies. */
export const MCP_TOOL_CALL_TIMEOUT_MS = 600_000;
/** Bytes of a server's stderr kept for error messages (its last lines). */
export const MCP_STDERR_TAIL_BYTES = 2 * 1024;
/** Tools taken from one server; a longer list is refused (CONFIG when starting). */
export const MCP_MAX_TOOLS_PER_SERVER = 1_000;
/** Pages of `tools/list` followed before a server's list is taken as endless. */
export const MCP_MAX_LIST_PAGES = 100;
/** Characters kept of a server's tool description (a longer one is cut with a note). */
export const MCP_MAX_TOOL_DESCRIPTION_CHARS = 8_000;
/** Longest MCP tool name registered, in characters (the MCP specification's tool-name bound); a longer one is skipped. */
export const MCP_MAX_TOOL_NAME_CHARS = 128;
/** Restarts of a server that died mid-session; after them its calls fail until the harness restarts. */
export const MCP_MAX_RESTARTS = 1;

// The terminal conversation: `ptc chat` (src/chat, docs/chat.md).
/** Lines of one unified diff shown in the chat or an approval prompt; the rest is counted in a note. */
export const MAX_CHAT_DIFF_LINES = 200;
/** Edit length (lines added plus removed) past which a diff is not computed (the diff library's `maxEditLength`); a note says so. */
export const MAX_DIFF_EDIT_LENGTH = 20_000;
/** Characters of one key argument in a progress line (`read src/a.ts`, `bash npm test`). */
export const MAX_PROGRESS_ARG_CHARS = 80;
/** Characters of a tool call's JSON arguments shown in an approval prompt. */
export const MAX_APPROVAL_ARGS_CHARS = 400;
/** Sessions `/sessions` lists in `ptc chat` (the newest of this workspace). */
export const MAX_CHAT_SESSIONS_LISTED = 20;
// Queue mode of `ptc eval` and `ptc worker` on BullMQ (src/eval/queue, docs/eval.md "Queue mode").
/** Time to reach Redis and select the database before `--queue` fails with CONFIG naming the URL. */
export const QUEUE_CONNECT_TIMEOUT_MS = 5_000;
/** A worker's lock on a job; renewed every half of it while the job runs. A worker killed mid-task loses its job after this. */
export const QUEUE_LOCK_DURATION_MS = 30_000;
/** How often each worker looks for jobs whose lock expired (stalled) and puts them back in the queue. */
export const QUEUE_STALLED_INTERVAL_MS = 15_000;
/** Times one job may stall (its worker died) before it is failed instead of run again. */
export const QUEUE_MAX_STALLED_COUNT = 3;
/** Attempts of a job whose run threw (an infrastructure failure, not a failed task); unknown tasks and presets fail at once. */
export const QUEUE_JOB_ATTEMPTS = 3;
/** Delay before such a job's next attempt, in ms (doubled each time). */
export const QUEUE_RETRY_BACKOFF_MS = 1_000;
/** On SIGTERM a worker waits this long for its running jobs, then aborts them and puts them back in the queue. */
export const QUEUE_WORKER_GRACE_MS = 60_000;
/** A close of the queue's connections that has not finished after this (Redis away) is forced. */
export const QUEUE_CLOSE_TIMEOUT_MS = 10_000;
/** How often a worker without `--run` looks for new runs in Redis. */
export const QUEUE_DISCOVER_INTERVAL_MS = 2_000;
/** How often `ptc eval --queue` checks the job counts besides the queue's events (events lost during a Redis restart). */
export const QUEUE_FOLLOW_POLL_MS = 1_000;
/** A session log travels back in the job's return value when it compresses to at most this many bytes; a larger one stays on the worker. */
export const QUEUE_MAX_INLINE_SESSION_BYTES = 1024 * 1024;
