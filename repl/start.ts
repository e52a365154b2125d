import { join } from 'node:path';
import { cellStatus, complete, describeWorkspace, inspect, Session, sessionFolders } from '../runtime/index';
import { CellRepl } from './cell-repl';
import { formatInternalError, formatResult, useColor, type TerminalStyle } from './format';
import { ProgressLine } from './progress-line';
import { helpText } from './help';
import { ReplHistory } from './history';

export interface ReplOptions {
  /** Workspace folder; default $SQLCDC_HOME, else the nearest .sqlcdc in cwd or a parent, else ./.sqlcdc. */
  workspace?: string;
  cwd?: string;
  /** Banner and prompts even when stdin is not a terminal (-i), as for a person typing through a pipe. */
  interactive?: boolean;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
}

/**
 * The terminal REPL over one Session. `%magic` lines run at once. Resolves when the REPL has exited
 * and the last cell has finished: true when, without prompts (input piped), a statement failed, so
 * that `sqlcdc < script.sql` exits 1 as sqlite3 and python do; a person at the prompt saw each error.
 */
export function startRepl(options: ReplOptions = {}): Promise<boolean> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const terminal = input.isTTY === true && output.isTTY === true;
  const prompts = input.isTTY === true || options.interactive === true;
  const folders = sessionFolders({ workspace: options.workspace, cwd: options.cwd });
  const session = new Session({ workspace: folders.workspace, cwd: folders.cwd });
  const history = new ReplHistory(join(session.workspace, 'repl_history'));
  const style = (): TerminalStyle => ({
    color: useColor(output),
    width: output.isTTY && output.columns > 0 ? output.columns : undefined,
  });
  const write = (text: string) => output.write(text.endsWith('\n') ? text : `${text}\n`);
  let running: AbortController | undefined;
  let failed = false;
  const progress = new ProgressLine();

  if (prompts) write(`SQL CDC REPL — workspace ${describeWorkspace(folders)}\nType .help for help, Ctrl-D to exit.`);

  const cells = new CellRepl({
    input,
    output,
    terminal,
    prompts,
    cwd: folders.cwd,
    incomplete: (text) => cellStatus(text).status === 'incomplete',
    run: async (text) => {
      running = new AbortController();
      let ok = true;
      try {
        for await (const r of session.execute(text, { signal: running.signal })) {
          if (r.kind === 'error') ok = false;
          if (r.kind === 'progress') progress.show(r);
          else {
            progress.end();
            write(formatResult(r, style()));
          }
        }
        progress.end();
      } finally {
        running = undefined;
      }
      if (!ok) failed = true;
      return ok;
    },
    cancel: () => running?.abort(),
    complete: (code) => complete(session, code, code.length),
    onError: (e) => void write(formatInternalError(e, style())),
  });
  const server = cells.server;

  // Output of something a statement started (a listener, a timer) after its cell finished goes above
  // the prompt; while a statement runs, its progress line makes way for it.
  session.output.subscribe(({ result }) => {
    progress.clear();
    cells.sayAbovePrompt(formatResult(result, style()));
  });

  if (terminal) cells.loadHistory(history.load());
  else history.load();
  server.on('line', (line: string) => history.record(line));

  cells.defineCommand('help', 'Show this help', () =>
    write(helpText(session, server.commands as Record<string, { help?: string }>)),
  );
  cells.defineCommand(
    'doc',
    'Show the documentation of a statement keyword, #function, column, %magic or [connection]',
    (arg) => {
      const word = arg.trim();
      if (!word) return write('usage: .doc <keyword | #function | column | %magic | [connection]>');
      const found = inspect(session, word, word.length);
      write(found.found ? found.text : `no documentation for '${word}'; try .help`);
    },
  );

  return cells.finished.then(async () => {
    await session.close();
    return failed && !prompts;
  });
}
