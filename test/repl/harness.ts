import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

/** The built CLI, as `npm start` runs it. */
export const SQLCDC = join(__dirname, '..', '..', 'bin', 'sqlcdc.js');

export const PROMPT = 'sqlcdc> ';
export const CONTINUATION = '   ...> ';

export { tempDir } from '../helpers/session';

/**
 * The REPL as a child process over piped stdio, as a user's terminal would drive it: with
 * --interactive, so that prompts end each response (node's REPL runs with terminal: false on pipes,
 * so nothing is echoed).
 */
export class ReplProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  private mark = 0;
  private readonly exited: Promise<number | null>;
  private waiters: (() => void)[] = [];

  /** `env` adds to the environment; an undefined value removes a variable. */
  constructor(cwd: string, env: Record<string, string | undefined> = {}, args: string[] = []) {
    const merged: Record<string, string | undefined> = {
      ...process.env,
      SQLCDC_HOME: join(cwd, 'ws'),
      NO_COLOR: '1',
      ...env,
    };
    for (const k of Object.keys(merged)) if (merged[k] === undefined) delete merged[k];
    this.child = spawn(process.execPath, [SQLCDC, '--interactive', ...args], { cwd, env: merged });
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      this.stdout += d;
      this.wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code) => {
        this.wake();
        resolve(code);
      }),
    );
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until stdout after the mark satisfies `done`; fails if the REPL exits first. */
  async waitFor(done: (text: string) => boolean, what: string): Promise<string> {
    for (;;) {
      const text = this.stdout.slice(this.mark);
      if (done(text)) return text;
      if (!this.alive)
        throw new Error(`REPL exited while waiting for ${what}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Waits for the next prompt and returns what was printed before it (consumed). */
  async response(): Promise<string> {
    const text = await this.waitFor((t) => t.endsWith(PROMPT) || t.endsWith(CONTINUATION), 'a prompt');
    this.mark = this.stdout.length;
    return text;
  }

  /** Sends one line and returns the output it produced, up to the next prompt (included). */
  async send(line: string): Promise<string> {
    this.child.stdin.write(`${line}\n`);
    return this.response();
  }

  /** Ctrl-D: ends stdin; resolves with the exit code. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }
}

/** The text of a response without its trailing prompt. */
export function body(response: string): string {
  for (const p of [PROMPT, CONTINUATION]) if (response.endsWith(p)) return response.slice(0, -p.length);
  return response;
}
