import { join } from 'node:path';
import { cellStatus, complete, inspect, Session } from '../runtime/index';
import { CellRepl } from './cell-repl';
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

/**
 * The terminal REPL over one Session. `%magic` lines run at once. Resolves when the REPL has exited
 * and the last cell has finished.
 */
export function startRepl(options: ReplOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const terminal = input.isTTY === true && output.isTTY === true;
  const session = new Session({ workspace: options.workspace, cwd: options.cwd });
  const history = new ReplHistory(join(session.state.workspace, 'repl_history'));
  const style = (): TerminalStyle => ({ color: useColor(output), width: output.isTTY && output.columns > 0 ? output.columns : undefined });
  const write = (text: string) => output.write(text.endsWith('\n') ? text : `${text}\n`);
  let running: AbortController | undefined;

  if (terminal) write(`SQL CDC REPL — workspace ${session.state.workspace}\nType .help for help, Ctrl-D to exit.`);

  const cells = new CellRepl({
    input,
    output,
    terminal,
    incomplete: (text) => cellStatus(text).status === 'incomplete',
    run: async (text) => {
      running = new AbortController();
      try {
        for await (const r of session.execute(text, { signal: running.signal })) write(formatResult(r, style()));
      } finally {
        running = undefined;
      }
    },
    cancel: () => running?.abort(),
    complete: (code) => complete(session, code, code.length),
    onError: (e) => void write(formatInternalError(e, style())),
  });
  const server = cells.server;

  // Output of something a statement started (a listener, a timer) after its cell finished.
  session.onLateResult = (r) => {
    write(formatResult(r, style()));
    if (!cells.running && !cells.closed) server.displayPrompt(true);
  };

  if (terminal) cells.loadHistory(history.load());
  else history.load();
  server.on('line', (line: string) => history.record(line));

  /** A REPL command's output, in turn with the lines before it (which may still be running). */
  const command = (action: (arg: string) => void) => (arg: string) => cells.enqueue(() => action(arg), () => server.displayPrompt());
  server.defineCommand('break', {
    help: 'Drop the statement being typed',
    action: command(() => cells.clearPending()),
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

  return cells.finished.then(() => session.close());
}
