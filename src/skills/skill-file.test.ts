import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SKILLS_PROMPT_BYTES } from './limits.js';
import { parseSkillFile, skillNameProblem } from './skill-file.js';
import { discoverSkills, skillLayers } from './skill-layers.js';
import { renderSkillsSection } from './skills-section.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-skills-unit-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function writeSkill(dir: string, folder: string, text: string): string {
  const file = path.join(dir, folder, 'SKILL.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

describe('parseSkillFile', () => {
  it('reads name, description, the other keys and the body', () => {
    const parsed = parseSkillFile('/s/pdf-forms/SKILL.md', '---\nname: pdf-forms\ndescription: Fill PDF forms.\nlicense: MIT\nallowed-tools: [bash]\nmetadata: { v: 1 }\n---\n\n# Body\nStep one.\n');
    expect(parsed.warnings).toEqual([]);
    expect(parsed.skill).toMatchObject({ name: 'pdf-forms', description: 'Fill PDF forms.', dir: '/s/pdf-forms', body: '# Body\nStep one.\n' });
    expect(parsed.skill?.extra).toEqual({ license: 'MIT', 'allowed-tools': ['bash'], metadata: { v: 1 } });
  });

  it('names the file line of invalid YAML, a missing description and a bad name', () => {
    const bad = parseSkillFile('/s/x/SKILL.md', '---\nname: x\ndescription: [unclosed\n---\nbody\n');
    expect(bad.skill).toBeUndefined();
    expect(bad.warnings[0]).toMatchObject({ file: '/s/x/SKILL.md' });
    expect(bad.warnings[0]!.line).toBeGreaterThanOrEqual(3);
    expect(bad.warnings[0]!.message).toMatch(/not valid YAML.*fix it/);

    const noDescription = parseSkillFile('/s/x/SKILL.md', '---\nname: x\n---\nbody\n');
    expect(noDescription.warnings[0]).toMatchObject({ line: 2 });
    expect(noDescription.warnings[0]!.message).toMatch(/add `description/);

    const badName = parseSkillFile('/s/x/SKILL.md', '---\ndescription: d\nname: Bad_Name\n---\n');
    expect(badName.warnings[0]).toMatchObject({ line: 3 });
    expect(badName.warnings[0]!.message).toMatch(/lowercase letters, digits and single hyphens/);

    expect(parseSkillFile('/s/x/SKILL.md', 'no front matter').warnings[0]).toMatchObject({ line: 1 });
    expect(parseSkillFile('/s/x/SKILL.md', '---\nname: x\n').warnings[0]!.message).toMatch(/not closed/);
  });

  it('checks names as the Agent Skills rule says', () => {
    expect(skillNameProblem('pdf-forms')).toBeUndefined();
    expect(skillNameProblem('a1')).toBeUndefined();
    for (const bad of ['', '-x', 'x-', 'a--b', 'A', 'a_b', 'a'.repeat(65)]) expect(skillNameProblem(bad)).toBeDefined();
  });

  it('loads a skill whose folder differs from its name, with a warning', () => {
    const parsed = parseSkillFile('/s/other/SKILL.md', '---\nname: pdf-forms\ndescription: d\n---\n');
    expect(parsed.skill?.name).toBe('pdf-forms');
    expect(parsed.warnings[0]!.message).toMatch(/differs from its folder/);
  });
});

describe('discoverSkills', () => {
  it('a later layer overrides by name and says what it overrides; a malformed skill is a warning and the others load', () => {
    const shipped = path.join(root, 'shipped');
    const user = path.join(root, 'config', 'ptc', 'skills');
    const ws = path.join(root, 'ws');
    const shippedFile = writeSkill(shipped, 'review', '---\nname: review\ndescription: shipped review\n---\nshipped body\n');
    writeSkill(shipped, 'only-shipped', '---\nname: only-shipped\ndescription: s\n---\n');
    const userFile = writeSkill(user, 'review', '---\nname: review\ndescription: user review\n---\nuser body\n');
    const broken = writeSkill(user, 'broken', '---\nname: broken\ndescription: : :\n  - x\n---\n');
    const wsFile = writeSkill(path.join(ws, '.ptc', 'skills'), 'review', '---\nname: review\ndescription: workspace review\n---\nws body\n');
    const env = { XDG_CONFIG_HOME: path.join(root, 'config'), HOME: path.join(root, 'home') };

    const trusted = discoverSkills(skillLayers({ workspace: ws, env, settings: {}, trusted: true, shippedDir: shipped }));
    expect(trusted.skills.map((s) => s.name)).toEqual(['only-shipped', 'review']);
    const review = trusted.skills.find((s) => s.name === 'review')!;
    expect(review).toMatchObject({ file: wsFile, layer: 'workspace', body: 'ws body\n', overrides: [shippedFile, userFile] });
    expect(trusted.warnings.map((w) => w.file)).toEqual([broken]);

    const untrusted = discoverSkills(skillLayers({ workspace: ws, env, settings: {}, trusted: false, shippedDir: shipped }));
    expect(untrusted.skills.find((s) => s.name === 'review')).toMatchObject({ file: userFile, layer: 'user' });
  });

  it('reads .claude/skills and .agents/skills only when turned on, and applies enabled/disabled', () => {
    const home = path.join(root, 'home');
    writeSkill(path.join(home, '.claude', 'skills'), 'from-claude', '---\nname: from-claude\ndescription: c\n---\n');
    writeSkill(path.join(home, '.agents', 'skills'), 'from-agents', '---\nname: from-agents\ndescription: a\n---\n');
    const base = { workspace: path.join(root, 'ws'), env: { HOME: home }, trusted: false, shippedDir: path.join(root, 'none') };
    expect(discoverSkills(skillLayers({ ...base, settings: {} })).skills).toEqual([]);
    const on = { claude: true, agents: true };
    expect(discoverSkills(skillLayers({ ...base, settings: on })).skills.map((s) => s.name)).toEqual(['from-agents', 'from-claude']);
    const off = discoverSkills(skillLayers({ ...base, settings: on }), { disabled: ['from-agents'] });
    expect(off.skills.map((s) => s.name)).toEqual(['from-claude']);
    expect(off.turnedOff.map((s) => s.name)).toEqual(['from-agents']);
    expect(discoverSkills(skillLayers({ ...base, settings: on }), { enabled: ['from-agents'] }).skills.map((s) => s.name)).toEqual(['from-agents']);
  });
});

describe('renderSkillsSection', () => {
  it('lists names and descriptions within the byte budget and counts the rest', () => {
    const skills = Array.from({ length: 200 }, (_, i) => ({ name: `skill-${i}`, description: 'x'.repeat(80) }));
    const text = renderSkillsSection(skills);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_SKILLS_PROMPT_BYTES);
    expect(text).toContain('- skill-0: ');
    const listed = text.split('\n').filter((l) => /^- skill-\d+: /.test(l)).length;
    expect(listed).toBeGreaterThan(10);
    expect(text).toContain(`and ${200 - listed} more skills`);
    expect(text).toContain('ptc skills list');
    expect(renderSkillsSection([])).toBe('');
    expect(renderSkillsSection(skills.slice(0, 2))).not.toContain('more skills');
  });
});
