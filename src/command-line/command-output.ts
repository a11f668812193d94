// What a command of the terminal front-ends (`ptc <command>`, and `ptc chat`'s slash commands that
// run one) produces: its stdout, stderr and exit code.

export interface CommandOutput {
  readonly stdout: string;
  readonly stderr?: string;
  /** 0 success, 1 failed, 2 usage or configuration, 130 interrupted (README, "CLI"). */
  readonly exitCode: 0 | 1 | 2 | 130;
}
