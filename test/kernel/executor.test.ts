import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Executor } from '../../kernel/executor';
import { History } from '../../kernel/history';
import { OutputContext } from '../../kernel/output-context';
import { newHeader, type Message } from '../../jupyter/wire';
import type { Command } from '../../runtime/commands/command';
import type { Print } from '../../runtime/script/ast';
import { Session } from '../../runtime/session';
import { tempDir } from '../helpers/temp';

/**
 * The executor in-process, on a real Session. PRINT is given test meanings for what later issues
 * bring: `PRINT 'later …'` also prints once its cell has finished (as a webhook listener a cell
 * opened would), `PRINT 'wait'` waits until cancelled (as a hanging HTTP call would).
 */
const testPrint: Command<Print> = async (stmt, _input, ctx) => {
  const text = stmt.text.value;
  if (text === 'wait') {
    await new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
    );
  }
  ctx.emit({ kind: 'message', text });
  if (text.startsWith('later')) setTimeout(() => ctx.emit({ kind: 'message', text: `${text}, after the cell` }), 20);
};

const dir = tempDir('executor');

let histories = 0;

interface Published {
  type: string;
  content: Record<string, unknown>;
  parent?: Message;
}

function setup() {
  const context = new OutputContext();
  const published: Published[] = [];
  const session = new Session({ workspace: join(dir, 'ws'), cwd: dir, commands: { Print: testPrint } });
  const historyFile = join(dir, `history-${++histories}.jsonl`);
  const history = new History(historyFile);
  const executor = new Executor(session, history, (type, content) =>
    published.push({ type, content: content as Record<string, unknown>, parent: context.current() }),
  );
  const request = () =>
    ({
      identities: [],
      header: newHeader('execute_request', 'client'),
      parent_header: {},
      metadata: {},
      content: {},
      buffers: [],
    }) as Message;
  const run = (code: string, options: Record<string, unknown> = {}) => {
    const msg = request();
    return { msg, reply: context.run(msg, () => executor.execute({ code, ...options })) };
  };
  return { session, executor, history, historyFile, published, run };
}

test('a cell shows execute_input, then its outputs in order, its last table as execute_result', async () => {
  const { published, run } = setup();
  const reply = await run("%help\nPRINT 'between';\n").reply;
  assert.equal(reply.status, 'ok');
  assert.deepEqual(
    published.map((p) => p.type),
    ['execute_input', 'display_data', 'stream'],
    'a table followed by more output is a display, not the result',
  );
  published.length = 0;
  await run('%help\n%connection list').reply;
  assert.deepEqual(
    published.map((p) => p.type),
    ['execute_input', 'display_data', 'execute_result'],
  );
  const result = published[2].content as { execution_count: number; data: Record<string, string> };
  assert.equal(result.execution_count, 2);
  assert.match(result.data['text/plain'], /^Connections\n/);
  assert.ok(result.data['application/vnd.dataresource+json']);
});

test('output emitted after its cell finished goes out under the cell that started it', async () => {
  const { published, run } = setup();
  const first = run("PRINT 'later from cell one';");
  await first.reply;
  const second = run("PRINT 'cell two';");
  await second.reply;
  await new Promise((r) => setTimeout(r, 60));
  const late = published.find((p) => p.type === 'stream' && String(p.content.text).includes('after the cell'));
  assert.ok(late, 'the late output was published');
  assert.equal(late.parent, first.msg);
  assert.deepEqual(late.content, { name: 'stdout', text: 'later from cell one, after the cell\n' });
});

test('interrupt cancels the running statement; the pipeline stays and the next cell runs', async () => {
  const { session, executor, run } = setup();
  await run('%help').reply;
  const before = session.dataset;
  const pending = run("PRINT 'wait';").reply;
  setImmediate(() => executor.interrupt());
  const reply = await pending;
  assert.equal(reply.status, 'error');
  assert.equal(reply.status === 'error' && reply.evalue, 'cancelled');
  assert.deepEqual(
    reply.status === 'error' && reply.traceback,
    ['PRINT at line 1, column 1: cancelled'],
    'no caret: the text is not at fault',
  );
  assert.equal(session.dataset, before);
  assert.equal((await run("PRINT 'next';").reply).status, 'ok');
});

test('an error is one error output and an error reply pointing at the statement', async () => {
  const { published, run } = setup();
  const reply = await run("PRINT 'ok';\n%nosuchmagic").reply;
  assert.equal(reply.status, 'error');
  assert.equal(published.filter((p) => p.type === 'error').length, 1);
  const failing = await run("PRINT 'ok';\nFROB THE DATA;").reply;
  assert.equal(failing.status, 'error');
  if (failing.status !== 'error') return;
  assert.equal(failing.ename, 'ScriptError');
  assert.match(failing.traceback[0], /line 2, column 1/);
  assert.equal(failing.traceback[1].trim(), 'FROB THE DATA;');
  assert.equal(failing.traceback[2].trim(), '^');
});

test("a cell adding a connection is kept out of the history file, and in the session's history as typed", async () => {
  const { history, historyFile, run } = setup();
  const secret =
    "%connection add pg postgres://app:s3cret@127.0.0.1:1/db\n%connection add api http://127.0.0.1:9 --bearer s3cret\nPRINT 'x';";
  await run(secret).reply;
  await run("PRINT 'after';").reply;
  await history.flushed();
  const file = readFileSync(historyFile, 'utf8');
  assert.ok(!file.includes('s3cret'), file);
  assert.deepEqual(
    new History(historyFile).query({ hist_access_type: 'tail' }).map((r) => r[2]),
    ["PRINT 'after';"],
  );
  // This session's own history keeps it, as a terminal's up-arrow does.
  assert.deepEqual(
    history.query({ hist_access_type: 'tail' }).map((r) => r[2]),
    [secret, "PRINT 'after';"],
  );
});

test('a silent cell publishes nothing and is neither counted nor kept in history', async () => {
  const { executor, history, published, run } = setup();
  await run("PRINT 'one';").reply;
  const reply = await run("PRINT 'quiet';", { silent: true }).reply;
  assert.equal(reply.status, 'ok');
  assert.equal(reply.execution_count, 1);
  assert.equal(executor.executionCount, 1);
  assert.deepEqual(
    published.map((p) => p.type),
    ['execute_input', 'stream'],
  );
  assert.deepEqual(
    history.query({ hist_access_type: 'tail' }).map((r) => r[2]),
    ["PRINT 'one';"],
  );
});
