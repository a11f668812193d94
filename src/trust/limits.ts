// Tunables of workspace trust (docs/presets.md "Trust", docs/security.md "Workspace trust"), unit in
// the name or the comment.

/** Files one workspace's configuration may span (preset files, plugin files, package manifests and entries); more is CONFIG. */
export const MAX_TRUST_FILES = 200;
/** One file hashed into a workspace's trust digest, in bytes; a larger one is CONFIG (nothing that big is reviewed). */
export const MAX_TRUST_FILE_BYTES = 4 * 1024 * 1024;
/** `$PTC_HOME/trust.json`, in bytes; a larger one is read as empty (nothing trusted) with a note. */
export const MAX_TRUST_STORE_BYTES = 4 * 1024 * 1024;
