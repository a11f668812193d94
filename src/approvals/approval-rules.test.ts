import { describe, expect, it } from 'vitest';
import { ApprovalRuleSet } from './approval-rule-set.js';
import { describeRuleFor, globMatch, parseRuleText, ruleMatches, type ApprovalRule } from './approval-rules.js';

const ws = '/work/ws';
const rule = (effect: 'allow' | 'deny', text: string): ApprovalRule => {
  const parsed = parseRuleText(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return { effect, ...parsed, origin: 'test:1' };
};
const bash = (command: string) => ({ tool: 'bash', args: { command } });
const write = (p: string) => ({ tool: 'write', args: { path: p, content: '' } });

describe('approval rules', () => {
  it('parses `tool` and `tool: pattern`, and refuses a pattern on a tool without an argument it reads', () => {
    expect(parseRuleText('bash: npm test*')).toEqual({ tool: 'bash', pattern: 'npm test*' });
    expect(parseRuleText('github__*')).toEqual({ tool: 'github__*' });
    expect(parseRuleText('todo: x')).toMatch(/only bash, .* take a pattern.*write `todo`/);
    expect(parseRuleText('bash:')).toMatch(/empty pattern/);
    expect(parseRuleText('no tool here: x y')).toMatch(/does not start with a tool name/);
  });

  it("bash: an allow's * never spans shell operators, so `npm test*` does not allow a chained command", () => {
    const allow = rule('allow', 'bash: npm test*');
    expect(ruleMatches(allow, bash('npm test'), ws)).toBe(true);
    expect(ruleMatches(allow, bash('npm test -- --grep foo'), ws)).toBe(true);
    for (const command of ['npm test; curl x | sh', 'npm test && rm -rf /', 'npm test $(evil)', 'npm test `evil`', 'npm test\nrm -rf /', 'npm test > /etc/x']) {
      expect(ruleMatches(allow, bash(command), ws), command).toBe(false);
    }
    expect(ruleMatches(allow, bash('npx npm test'), ws)).toBe(false);
  });

  it('bash: a deny matches the whole command or any command in it', () => {
    const deny = rule('deny', 'bash: rm *');
    expect(ruleMatches(deny, bash('rm -rf build'), ws)).toBe(true);
    expect(ruleMatches(deny, bash('cd x && rm -rf y'), ws)).toBe(true);
    expect(ruleMatches(deny, bash('ls | rm -f z'), ws)).toBe(true);
    expect(ruleMatches(deny, bash('echo $(rm -f z)'), ws)).toBe(true);
    expect(ruleMatches(deny, bash('ls -la'), ws)).toBe(false);
  });

  it('file tools: the path relative to the workspace, * within a segment, ** across; outside the workspace only absolute patterns', () => {
    const src = rule('allow', 'write: src/**');
    expect(ruleMatches(src, write('src/a.ts'), ws)).toBe(true);
    expect(ruleMatches(src, write('./src/deep/er/b.ts'), ws)).toBe(true);
    expect(ruleMatches(src, write(`${ws}/src/c.ts`), ws)).toBe(true);
    expect(ruleMatches(src, write('src/../secret.txt'), ws)).toBe(false);
    expect(ruleMatches(src, write('../ws2/src/a.ts'), ws)).toBe(false);
    const one = rule('allow', 'write: src/*.ts');
    expect(ruleMatches(one, write('src/a.ts'), ws)).toBe(true);
    expect(ruleMatches(one, write('src/x/a.ts'), ws)).toBe(false);
    expect(ruleMatches(rule('allow', 'write: /tmp/**'), write('/tmp/out/a'), ws)).toBe(true);
    expect(ruleMatches(rule('allow', 'write: src/**/a.ts'), write('src/a.ts'), ws)).toBe(true);
    // A rule for write is not a rule for edit.
    expect(ruleMatches(src, { tool: 'edit', args: { path: 'src/a.ts' } }, ws)).toBe(false);
  });

  it('tool-only rules and tool globs match every call of the tool', () => {
    expect(ruleMatches(rule('allow', 'github__*'), { tool: 'github__create_issue', args: {} }, ws)).toBe(true);
    expect(ruleMatches(rule('allow', 'github__*'), { tool: 'gitlab__x', args: {} }, ws)).toBe(false);
    expect(ruleMatches(rule('allow', 'bash'), bash('anything; at all'), ws)).toBe(true);
  });

  it('deny wins over allow in a set', () => {
    const set = new ApprovalRuleSet([rule('allow', 'bash'), rule('deny', 'bash: git push*')]);
    expect(set.allowing(bash('git status'), ws)?.tool).toBe('bash');
    expect(set.allowing(bash('git push origin'), ws)).toBeUndefined();
    expect(set.denying(bash('git push origin'), ws)?.pattern).toBe('git push*');
  });

  it('an always-allow rule is the exact argument, with wildcards escaped, and covers that call only', () => {
    expect(describeRuleFor(bash('  npm test  '), ws)).toBe('bash: npm test');
    expect(describeRuleFor(write(`${ws}/src/a.ts`), ws)).toBe('write: src/a.ts');
    expect(describeRuleFor({ tool: 'todo', args: { todos: [] } }, ws)).toBe('todo');
    const saved: string[] = [];
    const set = new ApprovalRuleSet([], (r) => {
      saved.push(`${r.tool}: ${r.pattern}`);
      return 'cfg:3';
    });
    const { rule: made } = set.remember(bash('ls *.txt'), ws);
    expect(made).toMatchObject({ effect: 'allow', tool: 'bash', pattern: 'ls \\*.txt', origin: 'cfg:3' });
    expect(saved).toEqual(['bash: ls \\*.txt']);
    expect(set.allowing(bash('ls *.txt'), ws)).toBeDefined();
    expect(set.allowing(bash('ls secret.txt'), ws)).toBeUndefined();
    // The same answer again saves nothing new.
    set.remember(bash('ls *.txt'), ws);
    expect(saved).toHaveLength(1);
  });

  it('a rule that cannot be saved still holds in this process, with the reason', () => {
    const set = new ApprovalRuleSet([], () => {
      throw new Error('read-only file system');
    });
    const { rule: made, error } = set.remember(bash('make'), ws);
    expect(error).toMatch(/read-only/);
    expect(made.origin).toMatch(/not saved/);
    expect(set.allowing(bash('make'), ws)).toBeDefined();
  });

  it('withRules: a session view adds rules, sees rules the base gains later, and remembers answers in the base', () => {
    const saved: string[] = [];
    const base = new ApprovalRuleSet([rule('allow', 'read')], (r) => (saved.push(r.tool), 'user:1'), '/u/config.yaml');
    const session = base.withRules([rule('deny', 'bash: make deploy*')]);
    expect(session.saveTo).toBe('/u/config.yaml');
    expect(session.denying(bash('make deploy prod'), ws)).toBeDefined();
    expect(base.denying(bash('make deploy prod'), ws)).toBeUndefined();
    session.remember(bash('make test'), ws);
    expect(saved).toEqual(['bash']);
    expect(base.allowing(bash('make test'), ws)).toBeDefined();
    expect(base.withRules([]).allowing(bash('make test'), ws)).toBeDefined();
    expect(session.allowing({ tool: 'read', args: { path: 'a' } }, ws)?.origin).toBe('test:1');
  });

  it('globMatch: escapes and ?', () => {
    expect(globMatch('a\\*b', 'a*b', 'any')).toBe(true);
    expect(globMatch('a\\*b', 'axb', 'any')).toBe(false);
    expect(globMatch('a?c', 'abc', 'path')).toBe(true);
    expect(globMatch('a?c', 'a/c', 'path')).toBe(false);
  });
});
