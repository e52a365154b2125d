import { clearScreenDown, cursorTo, moveCursor } from 'node:readline';
import * as repl from 'node:repl';
import { splitCell } from '../runtime/index';
import { didYouMean } from '../runtime/support';
import { defineScriptCommands } from './commands';

export const PROMPT = 'sqlcdc> ';
/** Shown while a statement continues over lines; as wide as PROMPT so the text lines up. */
export const CONTINUATION_PROMPT = '   ...> ';

/** Completions for `code` (everything typed so far): `matches` replace `code` from UTF-16 index `start`. */
export interface Completion {
  matches: string[];
  start: number;
}

export interface CellReplOptions {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  terminal: boolean;
  /**
   * Whether to show prompts: when a person types (stdin is a terminal) or asks for them (-i). Piped
   * input gets none, so that `echo "PRINT 'hi';" | sqlcdc` prints only what the statements print.
   */
  prompts: boolean;
  /** Folder that the file names of .load and .save are relative to. */
  cwd: string;
  /**
   * Whether `text` (what has been typed since the last cell ran, without the newline that ended its
   * last line, as jupyter console asks the kernel) must wait for more lines.
   */
  incomplete(text: string): boolean;
  /** Runs one cell; the next line waits for it. Resolves whether it ran without an error. */
  run(cell: string): Promise<boolean>;
  /** Ctrl-C (or SIGINT) while a cell runs. */
  cancel(): void;
  complete(code: string): Completion | Promise<Completion>;
  /** A queued task failed: the queue goes on. */
  onError(e: unknown): void;
}

/**
 * node:repl reading SQL CDC cells, shared by the local REPL and the REPL attached to a kernel.
 * A statement may span lines until its `;`; the statement being typed is buffered here rather than
 * with node's `Recoverable`, because node's buffer assumes each eval finishes before the next line
 * arrives, while a pasted or piped block arrives as many lines at once while a cell is still running.
 * So lines are handled strictly one after the other, each one's `eval` finishing only when the cell
 * before it has run.
 */
export class CellRepl {
  readonly server: repl.REPLServer;
  /** Resolves when the REPL has exited and the last cell has finished. */
  readonly finished: Promise<void>;
  /** The lines of a statement still being typed (until its `;`). */
  private pending = '';
  /** The line queue: each line is handled after the one before it, cells included. */
  private lines: Promise<void> = Promise.resolve();
  private busy = false;
  private exited = false;
  /** `.exit` was read: the lines after it are not run. */
  private exiting = false;
  /**
   * The statements of the cells that ran without an error, in order, for .save. Magic lines are
   * left out: they may carry secrets (%connection add … --bearer), and a saved file is run as one
   * cell, where magics are only allowed at the top.
   */
  readonly transcript: string[] = [];

  constructor(private readonly options: CellReplOptions) {
    this.server = repl.start({
      prompt: options.prompts ? PROMPT : '',
      input: options.input,
      output: options.output,
      terminal: options.terminal,
      eval: (cmd, _context, _file, done) =>
        this.enqueue(
          () => this.accept(cmd),
          () => done(null, undefined),
        ),
      completer: (line: string, callback: (err: Error | null, result: [string[], string]) => void) => {
        // A REPL command (`.he` → `.help`), as node's REPL completes its own; not inside a statement.
        if (!this.pending && /^\.\w*$/.test(line)) {
          const names = Object.keys(this.server.commands).map((c) => `.${c}`);
          return callback(null, [names.filter((n) => n.startsWith(line)).sort(), line]);
        }
        const code = this.pending + line;
        const typedBefore = this.pending.length;
        Promise.resolve()
          .then(() => options.complete(code))
          .then(
            // readline replaces a part of the current line only.
            (c) => callback(null, c.start < typedBefore ? [[], line] : [c.matches, code.slice(c.start)]),
            () => callback(null, [[], line]),
          );
      },
      ignoreUndefined: true,
      preview: false,
    });

    // Ctrl-C while a cell runs cancels it; during a multi-line statement it drops what was typed;
    // otherwise node's own handling (clear the line, or "press Ctrl+C again to exit"). A SIGINT
    // signal (piped stdin, kill -INT) is treated the same.
    const nodeInterrupt = this.server.listeners('SIGINT') as ((this: repl.REPLServer) => void)[];
    this.server.removeAllListeners('SIGINT');
    const interrupt = () => {
      if (this.busy) options.cancel();
      else if (this.exited) return;
      else if (this.pending) {
        (this.server as unknown as { clearLine(): void }).clearLine();
        this.setPending('');
        this.server.displayPrompt();
      } else for (const listener of nodeInterrupt) listener.call(this.server);
    };
    this.server.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);
    this.divertDotLines();
    defineScriptCommands(this, options.cwd);

    this.finished = new Promise((resolve) => {
      this.server.on('exit', () => {
        this.exited = true;
        // At the end of piped input the last statement may omit its `;`, as in a script.
        this.enqueue(
          () => (this.pending.trim() ? this.runCell(this.pending) : undefined),
          () => undefined,
        );
        void this.lines.then(() => {
          process.off('SIGINT', interrupt);
          resolve();
        });
      });
    });
  }

  /** Whether a cell is running now. */
  get running(): boolean {
    return this.busy;
  }

  /** Whether the REPL has exited (cells still queued may be finishing). */
  get closed(): boolean {
    return this.exited;
  }

  /** Prints a line of the REPL's own (not a cell's output). */
  say(text: string): void {
    this.options.output.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /**
   * Prints output that comes outside any cell's turn (a call to a listener a cell started). At a
   * prompt it goes above it: the prompt and the half-typed line are wiped, the output written, and
   * both drawn again below with the cursor where it was, so typing goes on undisturbed.
   */
  sayAbovePrompt(text: string): void {
    const atPrompt = !this.busy && !this.exited;
    const redraw = atPrompt && this.options.terminal;
    // The earlier lines of a statement going on over lines, as they were shown: wiped and drawn again too.
    const earlier = redraw && this.options.prompts ? this.pending.replace(/\n$/, '').split('\n') : [];
    const shown = this.pending ? earlier.map((line, i) => `${i === 0 ? PROMPT : CONTINUATION_PROMPT}${line}`) : [];
    if (redraw) {
      const output = this.options.output;
      const columns = output.columns || 80;
      const rows = shown.reduce((n, line) => n + Math.max(1, Math.ceil(line.length / columns)), 0);
      moveCursor(output, 0, -(this.server.getCursorPos().rows + rows));
      cursorTo(output, 0);
      clearScreenDown(output);
    }
    this.say(text);
    for (const line of shown) this.say(line);
    if (atPrompt) this.server.displayPrompt(true);
  }

  /** Drops the statement being typed. */
  clearPending(): void {
    this.setPending('');
  }

  /** Puts earlier input into the terminal's history (up-arrow), most recent first. */
  loadHistory(entries: string[]): void {
    (this.server as unknown as { history: string[] }).history.push(...entries);
  }

  /**
   * A REPL command (`.name arg`) that runs in turn with the lines before it (which may still be
   * running), then shows the prompt. node's own commands run at once, ahead of the queued lines.
   */
  defineCommand(name: string, help: string, action: (arg: string) => unknown): void {
    this.server.defineCommand(name, {
      help,
      action: (arg) =>
        this.enqueue(
          () => action(arg),
          () => this.server.displayPrompt(),
        ),
    });
  }

  /** Queues `task` after every line before it; `then` (the prompt) follows unless the REPL has exited. */
  enqueue(task: () => unknown, then: () => void): void {
    this.lines = this.lines
      .then(task)
      .catch((e: unknown) => this.options.onError(e))
      .then(() => {
        if (!this.exited) then();
      });
  }

  /**
   * node takes every line starting with `.` for a REPL command and drops one it does not know with
   * "Invalid REPL keyword", at once, ahead of the queued lines. Inside a statement such a line is
   * script text (a string or a block going on), and an unknown command is refused in turn, in words
   * about SQL CDC. Known commands (`.break` included) stay node's.
   */
  private divertDotLines(): void {
    const nodeLine = this.server.listeners('line') as ((line: string) => void)[];
    this.server.removeAllListeners('line');
    this.server.on('line', (line: string) => {
      // After .exit, lines already read (the rest of a piped script) are dropped: node would run
      // them, as its .exit closes the REPL only on the next tick.
      if (this.exiting) return;
      const trimmed = line.trim();
      // The lines node reads as a command: what its own line handler tests.
      const command = trimmed.startsWith('.') && trimmed[1] !== '.' && Number.isNaN(parseFloat(trimmed));
      const keyword = /^\.(\S*)/.exec(trimmed)?.[1] ?? '';
      const editing = (this.server as unknown as { editorMode: boolean }).editorMode;
      if (!command || editing || Object.hasOwn(this.server.commands, keyword)) {
        if (command && !editing && keyword === 'exit') this.exiting = true;
        for (const listener of nodeLine) listener.call(this.server, line);
      } else if (this.pending) {
        this.enqueue(
          () => this.accept(`${line}\n`),
          () => this.server.displayPrompt(),
        );
      } else {
        this.enqueue(
          () => {
            const known = Object.keys(this.server.commands).map((c) => `.${c}`);
            this.say(`unknown REPL command .${keyword}: .help lists them${didYouMean(`.${keyword}`, known)}`);
          },
          () => this.server.displayPrompt(),
        );
      }
    });
  }

  private setPending(text: string): void {
    this.pending = text;
    if (this.options.prompts) this.server.setPrompt(text ? CONTINUATION_PROMPT : PROMPT);
  }

  private async accept(line: string): Promise<void> {
    const text = this.pending + line;
    if (!text.trim()) return this.setPending('');
    if (this.options.incomplete(text.replace(/\r?\n$/, ''))) return this.setPending(text);
    this.setPending('');
    await this.runCell(text);
  }

  /** Runs a cell as if typed: `.load` runs a file's text through here. */
  async runCell(cell: string): Promise<void> {
    this.busy = true;
    try {
      if (!(await this.options.run(cell))) return;
      const { body } = splitCell(cell);
      if (body.trim()) this.transcript.push(body.trim());
    } finally {
      this.busy = false;
    }
  }
}
