import * as repl from 'node:repl';
import { join } from 'node:path';
import { Session } from '../runtime/session';
import { isCompleteScript } from '../runtime/script/parser';
import { complete } from '../runtime/services/complete';
import { inspect } from '../runtime/services/inspect';
import { formatInternalError, formatResult, useColor, type TerminalStyle } from './format';
import { helpText } from './help';
import { ReplHistory } from './history';

export interface ReplOptions {
  /** Workspace folder; default $SQLCDC_HOME or ./.sqlcdc. */
  workspace?: string;
  cwd?: string;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
}

export const PROMPT = 'sqlcdc> ';
/** Shown while a statement continues over lines; as wide as PROMPT so the text lines up. */
export const CONTINUATION_PROMPT = '   ...> ';

/**
 * The terminal REPL: node:repl with an `eval` that feeds one Session. A statement may span lines
 * until its `;`; `%magic` lines run at once. Resolves when the REPL has exited and the last cell has
 * finished.
 *
 * Lines are handled strictly one after the other, each one's `eval` finishing only when the previous
 * cell has run: a pasted or piped block arrives as many lines at once while a cell is still running.
 * For the same reason the statement being typed is buffered here rather than with node's
 * `Recoverable` (node's buffer assumes each eval finishes before the next line arrives).
 */
export function startRepl(options: ReplOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const terminal = input.isTTY === true && output.isTTY === true;
  const session = new Session({ workspace: options.workspace, cwd: options.cwd });
  const history = new ReplHistory(join(session.state.workspace, 'repl_history'));
  const style = (): TerminalStyle => ({ color: useColor(output), width: output.isTTY && output.columns > 0 ? output.columns : undefined });
  const write = (text: string) => output.write(text.endsWith('\n') ? text : `${text}\n`);

  /** The lines of a statement still being typed (until its `;`). */
  let pending = '';
  /** The line queue: each line is handled after the one before it, cells included. */
  let lines: Promise<void> = Promise.resolve();
  let running: AbortController | undefined;
  let closed = false;

  async function runCell(text: string): Promise<void> {
    const controller = new AbortController();
    running = controller;
    try {
      for await (const r of session.execute(text, { signal: controller.signal })) write(formatResult(r, style()));
    } finally {
      running = undefined;
    }
  }

  function setPending(text: string): void {
    pending = text;
    server.setPrompt(text ? CONTINUATION_PROMPT : PROMPT);
  }

  async function accept(line: string): Promise<void> {
    const text = pending + line;
    if (!text.trim()) return setPending('');
    if (!pending && text.trimStart().startsWith('%')) return runCell(text);
    if (isCompleteScript(text).status === 'incomplete') return setPending(text);
    setPending('');
    await runCell(text);
  }

  /**
   * Queues `task` after every line before it; `then` (the prompt) follows unless the REPL has closed.
   * A failure of the interpreter itself is shown and the queue goes on.
   */
  function enqueue(task: () => unknown, then: () => void): void {
    lines = lines
      .then(task)
      .catch((e: unknown) => void write(formatInternalError(e, style())))
      .then(() => {
        if (!closed) then();
      });
  }

  const evaluate: repl.REPLEval = (cmd, _context, _file, done) => enqueue(() => accept(cmd), () => done(null, undefined));

  if (terminal) write(`SQL CDC REPL — workspace ${session.state.workspace}\nType .help for help, Ctrl-D to exit.`);

  const server = repl.start({
    prompt: PROMPT,
    input,
    output,
    terminal,
    eval: evaluate,
    completer: (line: string, callback: (err: Error | null, result: [string[], string]) => void) => {
      const code = pending + line;
      try {
        const c = complete(session, code, code.length);
        // readline replaces a part of the current line only.
        callback(null, c.start < pending.length ? [[], line] : [c.matches, code.slice(c.start)]);
      } catch {
        callback(null, [[], line]);
      }
    },
    ignoreUndefined: true,
    preview: false,
  });

  // Output of something a statement started (a listener, a timer) after its cell finished.
  session.onLateResult = (r) => {
    write(formatResult(r, style()));
    if (!running && !closed) server.displayPrompt(true);
  };

  if (terminal) (server as unknown as { history: string[] }).history.push(...history.load());
  else history.load();
  server.on('line', (line: string) => history.record(line));

  // Ctrl-C while a cell runs cancels it; during a multi-line statement it drops what was typed;
  // otherwise node's own handling (clear the line, or "press Ctrl+C again to exit"). A SIGINT
  // signal (piped stdin, kill -INT) is treated the same.
  const nodeInterrupt = server.listeners('SIGINT') as ((this: repl.REPLServer) => void)[];
  server.removeAllListeners('SIGINT');
  const interrupt = () => {
    if (running) running.abort();
    else if (closed) return;
    else if (pending) {
      (server as unknown as { clearLine(): void }).clearLine();
      setPending('');
      server.displayPrompt();
    } else for (const listener of nodeInterrupt) listener.call(server);
  };
  server.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);

  /** A REPL command's output, in turn with the lines before it (which may still be running). */
  const command = (action: (arg: string) => void) => (arg: string) => enqueue(() => action(arg), () => server.displayPrompt());
  server.defineCommand('break', {
    help: 'Drop the statement being typed',
    action: command(() => setPending('')),
  });
  server.defineCommand('help', {
    help: 'Show this help',
    action: command(() => write(helpText(server.commands as Record<string, { help?: string }>))),
  });
  server.defineCommand('doc', {
    help: 'Show the documentation of a statement keyword, #function, column, %magic or [connection]',
    action: command((arg) => {
      const word = arg.trim();
      if (!word) return write('usage: .doc <keyword | #function | column | %magic | [connection]>');
      const found = inspect(session, word, word.length);
      write(found.found ? found.text : `no documentation for '${word}'; try .help`);
    }),
  });

  return new Promise((resolve) => {
    server.on('exit', () => {
      closed = true;
      // At the end of piped input the last statement may omit its `;`, as in a script.
      enqueue(() => (pending.trim() ? runCell(pending) : undefined), () => undefined);
      void lines.then(async () => {
        process.off('SIGINT', interrupt);
        await session.close();
        resolve();
      });
    });
  });
}
