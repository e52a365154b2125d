import * as repl from 'node:repl';
import { styleText } from 'node:util';
import { useColor } from '../repl/format';
import { CONTINUATION_PROMPT, PROMPT } from '../repl/start';
import { cellCompleteness } from './cell';
import { readConnectionFile } from './connection';
import { KernelClient } from './kernel-client';
import type { Message } from './wire';

/**
 * `sqlcdc repl --existing <connection file>`: the terminal REPL as a Jupyter client of a running
 * kernel, so a notebook and a terminal share one live session. Input is split into cells as in the
 * local REPL (a statement runs once its `;` is typed); cells, completion and interrupts go to the
 * kernel, and its text/plain output is printed. Resolves with the exit code when the user leaves;
 * the kernel keeps running.
 */
export async function runExistingRepl(connectionFile: string): Promise<number> {
  let client: KernelClient;
  let banner: string;
  try {
    const connected = await KernelClient.connect(readConnectionFile(connectionFile));
    client = connected.client;
    banner = String(connected.info.content.banner ?? '');
  } catch (e) {
    process.stderr.write(`sqlcdc: cannot attach to the kernel: ${(e as Error).message}\n`);
    return 1;
  }

  const input = process.stdin;
  const output = process.stdout;
  const terminal = input.isTTY === true && output.isTTY === true;
  const color = useColor(output);
  const write = (text: string) => output.write(text.endsWith('\n') ? text : `${text}\n`);
  const show = (msg: Message) => {
    const text = outputText(msg, color);
    if (text !== undefined) write(text);
  };

  /** The lines of a statement still being typed (until its `;`). */
  let pending = '';
  /** Each line is handled after the one before it: piped or pasted lines arrive while a cell runs. */
  let lines: Promise<void> = Promise.resolve();
  let running = false;
  let closed = false;

  async function runCell(code: string): Promise<void> {
    running = true;
    try {
      const content = { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: false };
      await client.request('execute_request', content, { onOutput: show });
    } catch (e) {
      if (!closed) write(`error: ${(e as Error).message}`);
    } finally {
      running = false;
    }
  }

  function setPending(text: string): void {
    pending = text;
    server.setPrompt(text ? CONTINUATION_PROMPT : PROMPT);
  }

  async function accept(line: string): Promise<void> {
    const text = pending + line;
    if (!text.trim()) return setPending('');
    if (cellCompleteness(text).status === 'incomplete') return setPending(text + '\n');
    setPending('');
    await runCell(text);
  }

  if (terminal) write(`Attached to a running SQL CDC kernel (${connectionFile}).\n${banner}\nCtrl-D detaches; the kernel keeps running.`);

  const server = repl.start({
    prompt: PROMPT,
    input,
    output,
    terminal,
    eval: (cmd, _context, _file, done) => {
      lines = lines.then(() => accept(cmd.replace(/\n$/, ''))).then(() => {
        if (!closed) done(null, undefined);
      });
    },
    completer: (line: string, callback: (err: Error | null, result: [string[], string]) => void) => {
      const code = pending + line;
      client.request('complete_request', { code, cursor_pos: [...code].length }, { timeoutMs: 5000 }).then(
        (reply) => {
          const matches = (reply.content.matches as string[]) ?? [];
          const start = [...code].slice(0, Number(reply.content.cursor_start)).join('').length;
          // readline replaces a part of the current line only.
          callback(null, start < pending.length ? [[], line] : [matches, code.slice(start)]);
        },
        () => callback(null, [[], line]),
      );
    },
    ignoreUndefined: true,
    preview: false,
  });

  if (terminal) {
    const hist = await client.request('history_request', { hist_access_type: 'tail', n: 1000, output: false, raw: true }).catch(() => undefined);
    const rows = (hist?.content.history as [number, number, string][] | undefined) ?? [];
    (server as unknown as { history: string[] }).history.push(...rows.map((r) => r[2].replace(/\n/g, ' ')).reverse());
  }

  // Ctrl-C while a cell runs interrupts the kernel; during a multi-line statement it drops what was
  // typed; otherwise node's own handling.
  const nodeInterrupt = server.listeners('SIGINT') as ((this: repl.REPLServer) => void)[];
  server.removeAllListeners('SIGINT');
  const interrupt = () => {
    if (running) void client.request('interrupt_request', {}, { channel: 'control', timeoutMs: 5000 }).catch(() => undefined);
    else if (closed) return;
    else if (pending) {
      (server as unknown as { clearLine(): void }).clearLine();
      setPending('');
      server.displayPrompt();
    } else for (const listener of nodeInterrupt) listener.call(server);
  };
  server.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);

  let exitCode = 0;
  client.onDead = (e) => {
    write(`sqlcdc: ${e.message}; detaching`);
    exitCode = 1;
    server.close();
  };

  return new Promise((resolve) => {
    server.on('exit', () => {
      // At the end of piped input the last statement may omit its `;`, as in a script.
      lines = lines.then(() => (pending.trim() ? runCell(pending) : undefined));
      void lines.then(() => {
        closed = true;
        process.off('SIGINT', interrupt);
        client.close();
        resolve(exitCode);
      });
    });
  });
}

/** What the terminal shows for one IOPub message: the text/plain of results, streams, errors. */
function outputText(msg: Message, color: boolean): string | undefined {
  const c = msg.content as Record<string, unknown>;
  switch (msg.header.msg_type) {
    case 'stream':
      return c.name === 'stderr' && color ? styleText('yellow', String(c.text)) : String(c.text);
    case 'execute_result':
    case 'display_data':
      return String((c.data as Record<string, unknown>)['text/plain'] ?? '');
    case 'error': {
      const [first = String(c.evalue), ...rest] = (c.traceback as string[]) ?? [];
      const head = `error: ${first}`;
      return [color ? styleText('red', head) : head, ...rest].join('\n');
    }
    default:
      return undefined;
  }
}
