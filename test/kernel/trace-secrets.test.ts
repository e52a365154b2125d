import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/session';
import { body, ReplProcess } from '../repl/harness';
import { startKernel } from './process';

test(
  'SQLCDC_KERNEL_TRACE logs messages without the secrets of a cell: neither the kernel’s log nor the attached REPL’s',
  { timeout: 60_000 },
  async (t) => {
    const dir = tempDir('kernel-trace');
    writeFileSync(join(dir, 'w.sql'), "PRINT 'x';\n");
    const trace = { SQLCDC_KERNEL_TRACE: '1', SQLCDC_HOME: `${dir}/ws` };
    const { kernel, file } = await startKernel(t, { dir, cwd: dir, env: trace });
    let kernelLog = '';
    kernel.stderr.on('data', (d: string) => (kernelLog += d));
    const client = new ReplProcess(dir, trace, ['repl', '--existing', file]);
    t.after(() => client.kill());
    await client.response();

    const cells = [
      '%connection add api http://127.0.0.1:9/ --bearer TRACESECRET1',
      '%connection add pg postgres://app:TRACESECRET2@127.0.0.1:9/db',
      "PRINT 'http://127.0.0.1:9/x?api_key=TRACESECRET3';",
    ];
    for (const cell of cells) assert.doesNotMatch(body(await client.send(cell)), /^error/m);
    // Secrets the kernel issues are shown once, in the cell's output, and not again in the logs.
    const issued = body(await client.send('%job create signed --writer w.sql --webhook --signing-secret'));
    const secret = /whsec_[A-Za-z0-9+/]+=*/.exec(issued)?.[0];
    assert.ok(secret, issued);
    assert.equal(await client.close(), 0);

    assert.match(kernelLog, /execute_request/, 'the kernel traced the cells');
    assert.match(client.stderr, /execute_request/, 'the REPL traced the cells');
    for (const [who, log] of [
      ['kernel', kernelLog],
      ['REPL', client.stderr],
    ])
      for (const shown of ['TRACESECRET', secret]) assert.ok(!log.includes(shown), `${shown} in the ${who}'s trace`);
    assert.match(kernelLog, /characters holding a secret/);
  },
);
