import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Dataset } from '../../runtime/index';
import type { ScriptError } from '../../runtime/errors';
import type { Session } from '../../runtime/session';
import { sendJson, startHttpServer, type TestServer } from '../helpers/http-server';
import { tempSession } from '../helpers/session';

/**
 * A wait RETRY_ON / RETRY_ONREGEX asks is said before it starts, as `curl --retry` does
 * (docs/sources.md "Retries"): the interval shows in the warning, so the 1 s default is tested by its
 * text, the statement cancelled at the warning.
 */

const servers: TestServer[] = [];
const sessions: Session[] = [];
after(async () => {
  for (const s of sessions) await s.close();
  for (const s of servers) await s.close();
});

/** A server whose jobs are always still queued. */
async function setup(): Promise<{ server: TestServer; session: Session }> {
  const server = await startHttpServer((_req, res) => sendJson(res, { status: 'queued' }));
  servers.push(server);
  const { session } = tempSession({}, 'retry-warnings');
  sessions.push(session);
  session.setDataset(Dataset.fromRows([{ name: 'id', type: { base: 'int' } }], [[7]]));
  return { server, session };
}

/** Runs `script`, cancels it at its first warning (the wait has begun); returns that warning. */
async function warnedThenCancelled(session: Session, script: string): Promise<string> {
  const controller = new AbortController();
  const warnings: string[] = [];
  let error: ScriptError | undefined;
  for await (const r of session.execute(script, { signal: controller.signal })) {
    if (r.kind === 'warning') {
      warnings.push(r.text);
      controller.abort();
    }
    if (r.kind === 'error') error = r.error;
  }
  assert.equal(error?.kind, 'cancelled', script);
  assert.equal(warnings.length, 1, script);
  return warnings[0];
}

const port = /127\.0\.0\.1:\d+/.source;

test('SELECT, APPLY and PUSH HTTP warn before each RETRY_ON wait: 1 s by default, RETRY_INTERVAL when given', async () => {
  const { server, session } = await setup();
  const select = `SELECT * FROM HTTP (GET ${server.url}/jobs) WITH RETRY_ON 'queued' RETRY_COUNT 5`;
  assert.match(
    await warnedThenCancelled(session, `${select};`),
    new RegExp(
      `^the response of GET http://${port}/jobs asked to retry; trying again in 1 s \\(RETRY_INTERVAL; 1 of 5\\)$`,
    ),
  );
  assert.match(
    await warnedThenCancelled(session, `${select} RETRY_INTERVAL 45;`),
    /\/jobs asked to retry; trying again in 45 s \(RETRY_INTERVAL; 1 of 5\)$/,
  );
  assert.match(
    await warnedThenCancelled(
      session,
      `APPLY HTTP (GET ${server.url}/jobs/{{id}}) WITH PROCESSING 'left join' RETRY_ONREGEX '^.*queue[d]';`,
    ),
    new RegExp(
      `^the response of GET http://${port}/jobs/7 asked to retry; trying again in 1 s \\(RETRY_INTERVAL; 1 of 1\\)$`,
    ),
  );
  assert.match(
    await warnedThenCancelled(
      session,
      `PUSH INTO HTTP ON_UPSERT (POST ${server.url}/jobs/{{id}}) PAYLOAD ({"id": {{id}}}) RETRY_ON 'queued' RETRY_PATH '$.status' RETRY_INTERVAL 30 RETRY_COUNT 2;`,
    ),
    new RegExp(
      `^the response of POST http://${port}/jobs/7 asked to retry; trying again in 30 s \\(RETRY_INTERVAL; 1 of 2\\)$`,
    ),
  );
  // Each was cancelled during its first wait: none was tried a second time.
  assert.equal(server.requests.length, 4);
});

test('every RETRY_ON wait is said, numbered; a secret in the URL is masked in the warning', async () => {
  const { session, server } = await setup();
  const warnings: string[] = [];
  await assert.rejects(async () => {
    for await (const r of session.execute(
      `SELECT * FROM HTTP (GET ${server.url}/jobs?token=SECRET-42) APPLY TX '$.done' WITH RETRY_ON 'queued' RETRY_INTERVAL 0 RETRY_COUNT 3;`,
    )) {
      if (r.kind === 'warning') warnings.push(r.text);
      if (r.kind === 'error') throw r.error;
    }
  });
  assert.deepEqual(
    warnings.map((w) => w.replace(/127\.0\.0\.1:\d+/, 'host')),
    [1, 2, 3].map(
      (n) =>
        `the response of GET http://host/jobs?token=**** asked to retry; trying again in 0 s (RETRY_INTERVAL; ${n} of 3)`,
    ),
  );
  assert.equal(server.requests.length, 4);
});
