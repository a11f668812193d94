// Tunables of Skills (docs/skills.md), unit in the name or the comment.

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
