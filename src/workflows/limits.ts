// Tunables of saved workflows (docs/workflows.md), unit in the name or the comment.

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
