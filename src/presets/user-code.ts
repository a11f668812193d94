// Whether this process has imported a user's module (a plugin file or package) — code whose own
// imports nothing here watches. The exec server's runners (docs/exec-server.md, "Runners") serve
// one command line after another in one process; a runner that imported user code serves no
// further one, so each plugin import happens in a process that never saw it before, exactly as in
// a one-shot `ptc` command. No imports: the runner reads it without loading the presets.

let first: string | undefined;

/** Records an import of user code (the first specifier is kept, for the reason shown). */
export function noteUserCodeImport(specifier: string): void {
  first ??= specifier;
}

/** The first user module this process imported, or undefined when it imported none. */
export function userCodeImported(): string | undefined {
  return first;
}
