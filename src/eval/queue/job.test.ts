import { describe, expect, it } from 'vitest';
import { jobDataSchema, jobIdOf, parseJobReturn } from './job.js';

const data = {
  v: 1,
  runId: 'm3tooleval-20261201-abc123',
  suite: 'm3tooleval',
  task: 'trade_calculator/estimate_final_value',
  preset: 'ptc',
  repeat: 0,
  model: { replay: false, model: 'deepseek:deepseek-chat' },
  maxSteps: 10,
  sandbox: 'auto',
};

describe('job shape', () => {
  it('accepts the data ptc eval queues and names each job by preset, task and repeat', () => {
    expect(jobDataSchema.safeParse(data).success).toBe(true);
    expect(jobIdOf(data)).toBe('ptc~trade_calculator/estimate_final_value~0');
    expect(jobIdOf({ ...data, repeat: 1 })).not.toBe(jobIdOf(data));
  });

  it('never has a colon in a job id (BullMQ keys are colon-separated)', () => {
    expect(jobIdOf({ ...data, task: 'a:b' })).not.toContain(':');
  });

  it('refuses data with a secret-looking extra field, a run id with a colon, or a missing task', () => {
    expect(jobDataSchema.safeParse({ ...data, model: { ...data.model, apiKey: 'sk-…' } }).success).toBe(false);
    expect(jobDataSchema.safeParse({ ...data, runId: 'a:b' }).success).toBe(false);
    const { task: _task, ...noTask } = data;
    expect(jobDataSchema.safeParse(noTask).success).toBe(false);
  });

  it('reads a return value only when it has the worker result shape and a safe session name', () => {
    expect(parseJobReturn({ v: 1, worker: 'h:1', result: { task: 't' } })).toMatchObject({ worker: 'h:1' });
    expect(parseJobReturn({ v: 1, worker: 'h:1', result: {}, session: { name: '../../etc/passwd', gzipBase64: '' } })).toBeUndefined();
    expect(parseJobReturn('done')).toBeUndefined();
  });
});
