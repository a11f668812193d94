// The chat's slash commands (docs/chat.md, "Slash commands"). A line `/name args` whose name is a
// word is a command and never reaches the model; an unknown name is an error with "did you mean".
// `//text` sends `/text` as a message; a line like `/etc/hosts …` (a path) is a message too.
// The commands act through ChatControl, which the chat loop implements.

import type { ApprovalPolicy } from '../approvals/approvals.js';
import { APPROVAL_POLICIES } from '../approvals/approvals.js';
import { didYouMean } from '../did-you-mean.js';
import { visible } from '../terminal-text.js';
import { displayPath } from './approval-prompt.js';
import { renderUnifiedDiff } from './diff-render.js';
import type { SessionChanges } from './session-changes.js';
import { formatCostTable, type UsageTally } from './usage-tally.js';

/** What the commands may see and change of the running chat. */
export interface ChatControl {
  readonly cwd: string;
  /** Colour diffs. */
  readonly color: boolean;
  /** Writes lines for the person (stderr). */
  print(lines: readonly string[]): void;
  readonly tally: UsageTally;
  readonly changes: SessionChanges;
  presetName(): string;
  /** Presets this workspace can use (trusted ones), for `/preset` and completion. */
  presetNames(): string[];
  /** Rebuilds the harness on preset `name` for the next turn; throws (a HarnessError) when it cannot. */
  switchPreset(name: string): Promise<void>;
  modelLabel(): string;
  /** Names `/model` completes: the catalog's `provider:id`s, or its bare ids with --base-url. */
  modelCandidates(): readonly string[];
  /** Resolves `spec` for the next turn; throws (ConfigError) when it cannot. */
  switchModel(spec: string): void | Promise<void>;
  approvalPolicy(): ApprovalPolicy;
  /** The saved approval rules in force (docs/config.md), one line each, deny first; empty when none. */
  approvalRules(): string[];
  setApprovalPolicy(policy: ApprovalPolicy): Promise<void>;
  /** Whether plan mode is on (docs/plan-mode.md). */
  planMode(): boolean;
  /** Turns plan mode on or off from the next step on. */
  setPlanMode(active: boolean): void;
  /** The open session's id; undefined before the first message. */
  sessionId(): string | undefined;
  /** Lines describing the recent sessions of this workspace. */
  sessionList(): string[];
  /** Closes the open session; the next message starts a new one. */
  clearSession(): Promise<void>;
  /** Runs a goal on `objective` (docs/goals.md) as the next turn, right after this command. */
  startGoal(objective: string): void;
  /** Compacts the open session now (docs/compaction.md), giving `focus` most room in the summary; lines to print. */
  compact(focus: string): Promise<string[]>;
  /** Continues session `idOrPrefix` (default: the latest of this workspace other than the open one); throws when it cannot. */
  resumeSession(idOrPrefix: string | undefined): Promise<string>;
}

export interface SlashCommand {
  readonly name: string;
  /** Argument hint for /help, e.g. `[NAME]`. */
  readonly usage: string;
  readonly summary: string;
  /** Candidates for the argument, for Tab completion. */
  argumentsOf?(control: ChatControl): readonly string[];
  /** 'exit' ends the chat. */
  run(args: string, control: ChatControl): Promise<'exit' | void>;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: 'help',
    usage: '',
    summary: 'list these commands',
    run: async (_args, control) => control.print(helpLines()),
  },
  {
    name: 'model',
    usage: '[NAME]',
    summary: 'show the model, or use NAME (provider:id, or the id with --base-url) from the next message on',
    argumentsOf: (control) => control.modelCandidates(),
    run: async (args, control) => {
      if (args === '') return control.print([`model ${control.modelLabel()}`]);
      await control.switchModel(args);
      control.print([`model ${control.modelLabel()} from the next message on`]);
    },
  },
  {
    name: 'preset',
    usage: '[NAME]',
    summary: 'show the preset and the ones available, or switch to NAME (rebuilds the tools) for the next message',
    argumentsOf: (control) => control.presetNames(),
    run: async (args, control) => {
      if (args === '') return control.print([`preset ${control.presetName()}; available: ${control.presetNames().join(', ')}`]);
      await control.switchPreset(args);
      control.print([`preset ${control.presetName()} from the next message on`]);
    },
  },
  {
    name: 'approve',
    usage: '[never|writes|all]',
    summary: 'show the approval mode and rules, or set the mode',
    argumentsOf: () => APPROVAL_POLICIES,
    run: async (args, control) => {
      if (args !== '') {
        if (!isPolicy(args)) {
          return control.print([`ptc: /approve takes never, writes or all, not "${visible(args)}".${didYouMean(args, APPROVAL_POLICIES)}`]);
        }
        await control.setApprovalPolicy(args);
      }
      const rules = control.approvalRules();
      control.print([
        `approvals "${control.approvalPolicy()}": ${POLICY_TEXT[control.approvalPolicy()]}`,
        ...(rules.length === 0 ? ['rules: none saved (tools allowed with [a] hold for this session; [s] saves a rule)'] : ['rules (deny wins):', ...rules.map((r) => `  ${visible(r)}`)]),
      ]);
    },
  },
  {
    name: 'plan',
    usage: '[on|off]',
    summary: 'toggle plan mode (no writes; the model ends with a plan for you to approve), or set it on or off',
    argumentsOf: () => ['on', 'off'],
    run: async (args, control) => {
      if (args !== '' && args !== 'on' && args !== 'off') {
        return control.print([`ptc: /plan takes on or off (or nothing, to toggle), not "${visible(args)}".`]);
      }
      const active = args === '' ? !control.planMode() : args === 'on';
      control.setPlanMode(active);
      control.print([
        active
          ? 'plan mode on: the write tools are hidden, bash and programs run with the workspace read-only; the model ends with a plan for you to approve'
          : 'plan mode off: the write tools are back from the next step on',
      ]);
    },
  },
  {
    name: 'compact',
    usage: '[FOCUS]',
    summary: 'shrink the context now: prune old tool results, summarise the oldest part (FOCUS: what to keep most of)',
    run: async (args, control) => control.print(await control.compact(args)),
  },
  {
    name: 'cost',
    usage: '',
    summary: 'tokens and cost by model since this chat started',
    run: async (_args, control) => control.print(formatCostTable(control.tally)),
  },
  {
    name: 'diff',
    usage: '',
    summary: "the files this session changed, as unified diffs",
    run: async (_args, control) => {
      const changes = control.changes.list();
      if (changes.length === 0) return control.print(['No file changes in this session yet.']);
      control.print(changes.flatMap((c) => renderUnifiedDiff(displayPath(control.cwd, c.path), c.oldText, c.newText, { color: control.color, maxLines: Number.MAX_SAFE_INTEGER })));
    },
  },
  {
    name: 'goal',
    usage: 'OBJECTIVE',
    summary: 'work in rounds until the model claims OBJECTIVE done with goal_done (check commands and budgets: ptc run --goal)',
    run: async (args, control) => {
      if (args === '') return control.print(['ptc: /goal takes the objective, e.g. /goal make the tests in test/ pass']);
      control.startGoal(args);
    },
  },
  {
    name: 'clear',
    usage: '',
    summary: 'close this session; the next message starts a new one (the model forgets the conversation)',
    run: async (_args, control) => {
      const id = control.sessionId();
      await control.clearSession();
      control.print([id === undefined ? 'No session was open; the next message starts one.' : `Closed session ${id}; the next message starts a new session.`]);
    },
  },
  {
    name: 'resume',
    usage: '[ID]',
    summary: 'continue session ID (a prefix will do), or the latest other session of this workspace',
    run: async (args, control) => {
      const id = await control.resumeSession(args === '' ? undefined : args);
      control.print([`Continuing session ${id}.`]);
    },
  },
  {
    name: 'sessions',
    usage: '',
    summary: 'the recent sessions of this workspace',
    run: async (_args, control) => control.print(control.sessionList()),
  },
  {
    name: 'skills',
    usage: '[NAME]',
    summary: 'the skills this workspace loads and which file wins for each, or the body of skill NAME (ptc skills list|show)',
    run: async (args, control) => {
      const { runSkillsList, runSkillsShow } = await import('../command-line/skills-report.js');
      const out = args === '' ? await runSkillsList({ cwd: control.cwd, env: process.env, json: false }) : await runSkillsShow(args, { cwd: control.cwd, env: process.env });
      control.print(`${out.stderr ?? ''}${out.stdout}`.trimEnd().split('\n'));
    },
  },
  {
    name: 'exit',
    usage: '',
    summary: 'end the chat (also /quit, Ctrl-D)',
    run: async () => 'exit',
  },
  {
    name: 'quit',
    usage: '',
    summary: '',
    run: async () => 'exit',
  },
];

const POLICY_TEXT: Record<ApprovalPolicy, string> = {
  never: 'nothing asks',
  writes: 'calls that may change something ask',
  all: 'every call asks',
};

function isPolicy(value: string): value is ApprovalPolicy {
  return (APPROVAL_POLICIES as readonly string[]).includes(value);
}

/** The names a person may type (for completion and did-you-mean). */
export const SLASH_COMMAND_NAMES: readonly string[] = SLASH_COMMANDS.map((c) => c.name);

export type ParsedLine =
  | { readonly kind: 'message'; readonly text: string }
  | { readonly kind: 'command'; readonly command: SlashCommand; readonly args: string }
  | { readonly kind: 'unknown'; readonly name: string; readonly error: string };

const COMMAND_LINE = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

/** What a typed (trimmed, non-empty) line is. */
export function parseLine(line: string): ParsedLine {
  if (line.startsWith('//')) return { kind: 'message', text: line.slice(1) };
  const match = COMMAND_LINE.exec(line);
  if (match === null) return { kind: 'message', text: line };
  const name = match[1]!;
  const command = SLASH_COMMANDS.find((c) => c.name === name.toLowerCase());
  if (command !== undefined) return { kind: 'command', command, args: (match[2] ?? '').trim() };
  return {
    kind: 'unknown',
    name,
    error: `ptc: unknown command /${visible(name)}.${suggestion(name)} /help lists the commands; start a message with // to send a leading slash to the model.`,
  };
}

/** ` Did you mean /a or /b?`: the commands `typed` begins, else the nearest by edit distance. */
function suggestion(typed: string): string {
  const prefixed = SLASH_COMMAND_NAMES.filter((n) => n.startsWith(typed.toLowerCase()));
  const names = prefixed.length > 0 ? prefixed : SLASH_COMMAND_NAMES;
  return didYouMean(typed, names).replace(/"([^"]+)"/g, '/$1') || (prefixed.length > 0 ? ` Did you mean ${prefixed.map((n) => `/${n}`).join(' or ')}?` : '');
}

function helpLines(): string[] {
  const shown = SLASH_COMMANDS.filter((c) => c.summary !== '');
  const width = Math.max(...shown.map((c) => `/${c.name} ${c.usage}`.length));
  return [
    'Commands (Tab completes names and arguments):',
    ...shown.map((c) => `  ${`/${c.name} ${c.usage}`.padEnd(width)}  ${c.summary}`),
    'A message starting with // is sent with one leading slash. Ctrl-C stops a step; Ctrl-D ends the chat.',
  ];
}
