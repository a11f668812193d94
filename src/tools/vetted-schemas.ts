// Tool definitions whose schemas and examples a test has already checked (the built-in tools':
// src/builtin-tools/catalog-schemas.test.ts, src/builtin-tools/contracts/contracts.test.ts). Registering one skips ajv until the tool is first
// called, so a command that only lists tools or runs a program that calls none never loads ajv
// (bench/cli-start.ts measures it). Every other definition is compiled and checked at registration.

const vetted = new WeakSet<object>();

/** Marks a definition as vetted and returns it. */
export function vetSchemas<T extends object>(def: T): T {
  vetted.add(def);
  return def;
}

/** Whether vetSchemas marked this very object. */
export function schemasVetted(def: object): boolean {
  return vetted.has(def);
}
