import { styleText } from 'node:util';
import { readConnectionFile } from '../../jupyter/connection';
import type { Message } from '../../jupyter/wire';
import { cellStatus } from '../../runtime/index';
import { CellRepl } from '../cell-repl';
import { useColor } from '../format';
import { KernelClient } from './kernel-client';

/**
 * `sqlcdc repl --existing <connection file>`: the terminal REPL as a Jupyter client of a running
 * kernel, so a notebook and a terminal share one live session. Input is split into cells as in the
 * local REPL (a statement runs once its `;` is typed); cells, completion and interrupts go to the
 * kernel, and its text/plain output is printed. Resolves with the exit code when the user leaves;
 * the kernel keeps running.
 */
export async function runExistingRepl(
  connectionFile: string,
  options: { interactive?: boolean } = {},
): Promise<number> {
  let client: KernelClient;
  let banner: string;
  try {
    const connected = await KernelClient.connect(readConnectionFile(connectionFile));
    client = connected.client;
    banner = (connected.info.content.banner as string | undefined) ?? '';
  } catch (e) {
    process.stderr.write(`sqlcdc: cannot attach to the kernel: ${(e as Error).message}\n`);
    return 1;
  }

  const input = process.stdin;
  const output = process.stdout;
  const terminal = input.isTTY === true && output.isTTY === true;
  const prompts = input.isTTY === true || options.interactive === true;
  const color = useColor(output);
  const write = (text: string) => output.write(text.endsWith('\n') ? text : `${text}\n`);
  // A cell's output, also what comes after its idle (calls to a listener it started): that goes above the prompt.
  const show = (msg: Message) => {
    const text = outputText(msg, color);
    if (text !== undefined) cells.sayAbovePrompt(text);
  };

  if (prompts)
    write(
      `Attached to a running SQL CDC kernel (${connectionFile}).\n${banner}\nCtrl-D detaches; the kernel keeps running.`,
    );

  const cells = new CellRepl({
    input,
    output,
    terminal,
    prompts,
    cwd: process.cwd(),
    incomplete: (text) => cellStatus(text).status === 'incomplete',
    run: async (text) => {
      const code = text.replace(/\n$/, '');
      const content = {
        code,
        silent: false,
        store_history: true,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: false,
      };
      const reply = await client.request('execute_request', content, { onOutput: show });
      return reply.content.status === 'ok';
    },
    cancel: () =>
      void client.request('interrupt_request', {}, { channel: 'control', timeoutMs: 5000 }).catch(() => undefined),
    complete: async (code) => {
      const reply = await client.request(
        'complete_request',
        { code, cursor_pos: [...code].length },
        { timeoutMs: 5000 },
      );
      const matches = (reply.content.matches as string[]) ?? [];
      // The kernel counts code points, a JavaScript string UTF-16 units.
      const start = [...code].slice(0, Number(reply.content.cursor_start)).join('').length;
      return { matches, start };
    },
    onError: (e) => write(`error: ${(e as Error).message}`),
  });

  if (terminal) {
    const hist = await client
      .request('history_request', { hist_access_type: 'tail', n: 1000, output: false, raw: true })
      .catch(() => undefined);
    const rows = (hist?.content.history as [number, number, string][] | undefined) ?? [];
    cells.loadHistory(rows.map((r) => r[2].replace(/\n/g, ' ')).reverse());
  }

  let exitCode = 0;
  client.onDead = (e) => {
    write(`sqlcdc: ${e.message}; detaching`);
    exitCode = 1;
    cells.server.close();
  };

  await cells.finished;
  client.close();
  return exitCode;
}

/** What the terminal shows for one IOPub message: the text/plain of results, streams, errors. */
function outputText(msg: Message, color: boolean): string | undefined {
  const c = msg.content;
  switch (msg.header.msg_type) {
    case 'stream':
      return c.name === 'stderr' && color ? styleText('yellow', String(c.text)) : String(c.text);
    case 'execute_result':
    case 'display_data':
      return (c.data as Record<string, string | undefined>)['text/plain'] ?? '';
    case 'error': {
      const [first = String(c.evalue), ...rest] = (c.traceback as string[]) ?? [];
      const head = `error: ${first}`;
      return [color ? styleText('red', head) : head, ...rest].join('\n');
    }
    default:
      return undefined;
  }
}
