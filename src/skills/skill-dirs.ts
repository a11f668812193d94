// The workspace's skill folders, relative to it: workspace configuration (docs/security.md,
// "Workspace trust"), hashed into the trust digest. Its own file so the trust check imports no parser.

export const WORKSPACE_SKILL_DIRS = ['.ptc/skills', '.claude/skills', '.agents/skills'] as const;
