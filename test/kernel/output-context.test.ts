import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { test } from 'node:test';
import { OutputContext } from '../../kernel/output-context';
import { newHeader, type Message } from '../../jupyter/wire';

function msg(type: string): Message {
  return { identities: [], header: newHeader(type, 's'), parent_header: {}, metadata: {}, content: {}, buffers: [] };
}

test('output of a timer started by a cell belongs to that cell, even after another cell ran', async () => {
  const ctx = new OutputContext();
  const first = msg('execute_request');
  const second = msg('execute_request');
  let late: Message | undefined;
  const fired = new Promise<void>((done) =>
    ctx.run(first, () => {
      setTimeout(() => {
        late = ctx.current();
        done();
      }, 20);
    }),
  );
  ctx.run(second, () => assert.equal(ctx.current(), second));
  await fired;
  assert.equal(late, first);
});

test('requests served by a listener a cell opened are attributed to that cell', async () => {
  const ctx = new OutputContext();
  const cell = msg('execute_request');
  let seen: Message | undefined;
  const server = await ctx.run(cell, async () => {
    const s = createServer((req, res) => {
      seen = ctx.current();
      res.end('ok');
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return s;
  });
  ctx.run(msg('execute_request'), () => undefined);
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) =>
    request({ host: '127.0.0.1', port, path: '/' }, (res) => res.resume().on('end', done)).end(),
  );
  server.close();
  assert.equal(seen, cell);
});

test('output with no request in its ancestry goes to the latest execute request', () => {
  const ctx = new OutputContext();
  assert.equal(ctx.current(), undefined);
  const cell = msg('execute_request');
  ctx.run(cell, () => undefined);
  ctx.run(msg('kernel_info_request'), () => undefined);
  assert.equal(ctx.current(), cell);
});
