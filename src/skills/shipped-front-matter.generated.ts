// Written by scripts/gen-remembered-parses.mjs (npm run build) from skills/*/SKILL.md; do not edit.
// The front matter of each shipped skill, by the SHA-256 of its text (remembered-front-matter.ts).

export const SHIPPED_FRONT_MATTER = {
  // skills/writing-ptc-programs/SKILL.md
  "2a35b7194b16642207eeed47f066ab76c9dcdaac68a5bea39238a3b08426266a": {"values":{"name":"writing-ptc-programs","description":"How to write one run_code program that does a multi-step task well — batching tool calls, running independent ones in parallel, handling failures and returning a small result. Use it in PTC mode before a task needing more than a few tool calls.","license":"MIT"},"keyLines":{"name":2,"description":3,"license":4}},
} as const;
