import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHttpServer } from '../helpers/http-server';
import { tempDir } from '../helpers/session';
import { body, ReplProcess } from '../repl/harness';
import { startKernel } from './process';

// Ctrl-C in Debian's jupyter console 6.4 never reaches the kernel (docs/jupyter.md): %connect_info
// tells the user the command that interrupts from another terminal, and it must work.
test(
  '%connect_info gives the kill -INT command that interrupts the running cell from outside',
  { timeout: 60_000 },
  async (t) => {
    // Never answers: only an interrupt can end the statement.
    const server = await startHttpServer(() => undefined);
    t.after(() => server.close());
    const dir = tempDir('kernel-int');
    const { kernel, file } = await startKernel(t, { dir, cwd: dir, env: { SQLCDC_HOME: `${dir}/ws` } });
    const client = new ReplProcess(dir, {}, ['repl', '--existing', file]);
    t.after(() => client.kill());
    await client.response();

    const info = body(await client.send('%connect_info'));
    const command = /^ {2}kill -INT (\d+)$/m.exec(info);
    assert.ok(command, info);
    assert.equal(Number(command[1]), kernel.pid);

    client.child.stdin.write(`SELECT * FROM HTTP (GET ${server.url}/never);\n`);
    await server.received(1);
    process.kill(Number(command[1]), 'SIGINT');
    assert.match(body(await client.response()), /^error: SELECT FROM HTTP at line 1, column 1: cancelled\n$/);
    // The session goes on.
    assert.equal(body(await client.send("PRINT 'next';")), 'next\n');
    assert.equal(await client.close(), 0);
  },
);
