// The words of run_code's `timeoutMs` for a runtime's default deadline: used by its contract and by
// run-code.ts when it puts a runtime's bounds into the generated schema. No zod here, so run-code.ts
// can import it at start-up.

export function runCodeTimeoutText(defaultMs: number): string {
  return `Deadline in ms including awaited tool calls (default ${defaultMs}).`;
}
