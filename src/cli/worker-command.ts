// `ptc worker --queue redis://…`: runs the jobs `ptc eval --queue` queues, until SIGTERM or SIGINT.
// The first signal stops taking jobs and lets running ones finish (up to --grace ms, then they go
// back to the queue); a second one puts them back at once. The worker is src/eval/queue/worker.ts,
// loaded only when the command runs (it brings in BullMQ). docs/eval.md, "Queue mode".

import { Command, Option } from 'commander';
import type { CommandOutput } from './commands.js';
import { integer, positiveInteger } from './flags.js';
import { startQueueWorker } from '../eval/queue/lazy-queue.js';

interface WorkerFlags {
  queue: string;
  concurrency?: number;
  run?: string;
  sessionDir?: string;
  grace?: number;
  lockDuration?: number;
  stalledInterval?: number;
  sandbox: 'required' | 'auto' | 'off';
}

/** The `worker` command for the `ptc` program; `print` receives the command's output. */
export function workerCommand(print: (out: CommandOutput) => void): Command {
  return new Command('worker')
    .description('run the jobs of `ptc eval --queue` runs from Redis (BullMQ), until SIGTERM')
    .requiredOption('--queue <url>', 'the Redis server of the runs: redis://host:port[/db]')
    .option('--concurrency <n>', 'jobs run at once, per run served (default 1)', positiveInteger('--concurrency'))
    .option('--run <id>', 'serve only this run (default: every run queued on this Redis)')
    .option('--session-dir <dir>', 'write session logs here (a shared filesystem) instead of sending them back with the job')
    .addOption(new Option('--sandbox <mode>', 'the loosest sandbox for ptc programs: a job asking for less gets this').choices(['required', 'auto', 'off']).default('auto'))
    .option('--grace <ms>', 'on SIGTERM, wait this long for running jobs before putting them back in the queue (default 60000)', integer('--grace', 0, Number.MAX_SAFE_INTEGER))
    .option('--lock-duration <ms>', "a job's lock; a worker killed mid-task loses its job after this (default 30000)", positiveInteger('--lock-duration'))
    .option('--stalled-interval <ms>', 'how often to look for jobs of dead workers (default 15000)', positiveInteger('--stalled-interval'))
    .exitOverride()
    .action(async (flags: WorkerFlags) => {
      const worker = await startQueueWorker({
        queue: flags.queue,
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        ...(flags.run !== undefined ? { runId: flags.run } : {}),
        ...(flags.sessionDir !== undefined ? { sessionDir: flags.sessionDir } : {}),
        sandbox: flags.sandbox,
        ...(flags.lockDuration !== undefined ? { lockDurationMs: flags.lockDuration } : {}),
        ...(flags.stalledInterval !== undefined ? { stalledIntervalMs: flags.stalledInterval } : {}),
        env: process.env,
        log: (line) => void process.stderr.write(`${line}\n`),
      });
      let signals = 0;
      const onSignal = (): void => {
        signals++;
        if (signals === 1) process.stderr.write(`ptc worker: stopping; running jobs finish${flags.grace !== undefined ? ` within ${flags.grace} ms` : ''} (signal again to put them back now)\n`);
        void worker.stop(signals === 1 ? flags.grace : 0);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const tally = await worker.done;
        print({ stdout: '', stderr: `ptc worker ${worker.id}: stopped; ${tally.completed} job(s) done, ${tally.failed} failed, ${tally.released} put back\n`, exitCode: 0 });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
