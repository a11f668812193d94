// The tunables that more than one layer reads, and those of the folders that keep no limits file of
// their own (the agent, the runtimes, model calls, the session log, codegen, presets, PTC mode), unit
// in the name or the comment. A feature's own tunables are in its folder's limits.ts (src/builtin-tools/,
// src/sandbox/, src/skills/, src/workflows/, src/trust/, src/config/, src/mcp/client/, src/mcp/server/,
// src/eval/queue/, src/chat/, src/cli/): what it alone reads stays beside it, and loading it does not
// compile the others'. Config may override them (validated at load).

// Tool results and their spill (src/tools, docs/sessions.md), compaction, goals and the workspace's
// instructions (src/agent).

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
/** Characters of a call id kept in its spill file's name (the id is made safe for a file name first). */
export const MAX_SPILL_NAME_CHARS = 96;
/** `read` returns at most this many lines when no limit is given; a spill's note asks for that many. */
export const DEFAULT_READ_LIMIT_LINES = 2_000;
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
/** Rounds a goal may take when `--max-rounds` is not given (docs/goals.md). */
export const DEFAULT_GOAL_MAX_ROUNDS = 10;
/** Deadline of a goal's check command, in ms (like a `bash` call with the largest timeout_ms). */
export const GOAL_CHECK_TIMEOUT_MS = 600_000;
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

// Shared by the runtime's children, the bash tools and a goal's check command (the bash tools and the
// sandbox read them through src/builtin-tools/shell-limits.ts and src/sandbox/limits.ts).

/** The smallest `timeout_ms` a `bash` call may give, in ms. */
export const MIN_BASH_TIMEOUT_MS = 100;
/** The largest `timeout_ms` a `bash` call may give, in ms (a goal's check command gets it). */
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Size of the private `/tmp` tmpfs of a bwrap sandbox (tmpfs pages are RAM: a memory group counts them, an RSS sum does not). */
export const SANDBOX_TMP_MAX_BYTES = 512 * 1024 * 1024;
/**
 * Tasks alive at once in one sandbox (processes and their threads: the kernel's pids controller counts
 * both; an idle Node process has about 7-11), enforced with a pids cgroup where one can be made.
 */
export const MAX_SANDBOX_TASKS = 512;

// The control channel (src/ptc-runtime-process) and every value the harness serialises.

/** JSON nesting of one control frame (the frame object itself is level 1); deeper frames are PROTOCOL. */
export const MAX_FRAME_DEPTH = 256;
/** JSON nesting of any value the harness serialises for a program or a tool (args, results, values). */
export const MAX_JSON_DEPTH = 256;
/** Reply bytes queued for a child that does not read its control channel; beyond it the run ends. */
export const MAX_QUEUED_REPLY_BYTES = 16 * 1024 * 1024;
/** Any error message from a program or a runtime that reaches the model or the log, in UTF-8 bytes. */
export const MAX_ERROR_MESSAGE_BYTES = 8 * 1024;

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

// SDK generation from schemas (src/codegen).

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

// Presets and plugin files (src/presets, docs/presets.md, docs/creator.md, docs/plugin-reload.md).
/** A preset file larger than this is refused before parsing (presets are short lists of rows). */
export const MAX_PRESET_FILE_BYTES = 256 * 1024;
/** A plugin file's text shown in plugin_try's approval request, in bytes; the rest is cut with a note (docs/creator.md). */
export const MAX_PLUGIN_TRY_SHOWN_BYTES = 32 * 1024;
/** Files (count) followed from one plugin file through its local imports when checking it for a change between turns (docs/plugin-reload.md). */
export const MAX_PLUGIN_GRAPH_FILES = 200;

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

// What the front-ends show of a turn (src/agent/progress-text.ts, src/chat/run-chat.ts, docs/chat.md);
// the chat's own display bounds are in src/chat/limits.ts.
/** Characters of one key argument in a progress line (`read src/a.ts`, `bash npm test`). */
export const MAX_PROGRESS_ARG_CHARS = 80;
/** Sessions `/sessions` lists in `ptc chat` (the newest of this workspace). */
export const MAX_CHAT_SESSIONS_LISTED = 20;
