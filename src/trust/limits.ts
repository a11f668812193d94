// Tunables of workspace trust (docs/presets.md "Trust", docs/security.md "Workspace trust"), unit in
// the name or the comment.

/** Files one workspace's configuration may span (preset files, plugin files, package manifests and entries); more is CONFIG. */
export const MAX_TRUST_FILES = 200;
/** One file hashed into a workspace's trust digest, in bytes; a larger one is CONFIG (nothing that big is reviewed). */
export const MAX_TRUST_FILE_BYTES = 4 * 1024 * 1024;
/** `$PTC_HOME/trust.json`, in bytes; a larger one is read as empty (nothing trusted) with a note. */
export const MAX_TRUST_STORE_BYTES = 4 * 1024 * 1024;
/** Directory levels of a workspace package walked for the digest (every file of it is hashed), a count. */
export const TRUST_PACKAGE_DEPTH = 32;
/** Directory levels of a workspace preset directory walked for the digest (`$PTC_HOME/presets` when the workspace is its home), a count. */
export const TRUST_PRESET_DIR_DEPTH = 8;
/** Directory levels of a workspace skill folder walked for the digest (docs/skills.md, "Trust"), a count. */
export const TRUST_SKILL_DIR_DEPTH = 4;
