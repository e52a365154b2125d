import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Executor } from '../../kernel/executor';
import { History } from '../../kernel/history';
import { OutputContext } from '../../kernel/output-context';
import { newHeader, type Message } from '../../jupyter/wire';
import { Session } from '../../runtime/session';
import { call } from '../helpers/serve';
import { tempDir } from '../helpers/temp';

const dir = tempDir('webhook-kernel');
const session = new Session({ workspace: join(dir, 'ws'), cwd: dir });
after(() => session.close());

test('the kernel shows a webhook call as display_data under the cell that started the listener, after later cells ran', async () => {
  const context = new OutputContext();
  const published: { type: string; content: Record<string, unknown>; parent?: Message }[] = [];
  const executor = new Executor(session, new History(join(dir, 'history.jsonl')), (type, content) =>
    published.push({ type, content: content as Record<string, unknown>, parent: context.current() }),
  );
  const run = (code: string) => {
    const msg = {
      identities: [],
      header: newHeader('execute_request', 'client'),
      parent_header: {},
      metadata: {},
      content: {},
      buffers: [],
    } as Message;
    return { msg, reply: context.run(msg, () => executor.execute({ code })) };
  };
  const start = run('%webhook start --no-auth');
  assert.equal((await start.reply).status, 'ok');
  const url = /webhook listening: (\S+)/.exec(
    published.map((p) => (typeof p.content.text === 'string' ? p.content.text : '')).join(''),
  )![1];
  const later = run('%webhook status');
  await later.reply;
  published.length = 0;
  // Posted from outside any cell, as a real client would; wait for the call inside a third cell.
  const waiting = run('%webhook wait --timeout 60');
  const r = await call(url, { headers: { 'content-type': 'application/json' }, body: '[{"sku": "A-1", "qty": 2}]' });
  assert.equal(r.status, 202, r.text);
  await waiting.reply;
  const shown = published.filter((p) => p.type === 'display_data');
  assert.equal(shown.length, 1);
  assert.equal(shown[0].parent, start.msg);
  const data = shown[0].content.data as Record<string, string>;
  assert.match(data['text/plain'], /webhook call 1 \(POST, 1 row\)[\s\S]*A-1/);
});
