import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempSession } from '../helpers/session';
import { startHttpServer } from '../helpers/http-server';
import type { Result } from '../../runtime/results';

/** The error a one-statement cell ends with: message and the column of its caret. */
async function failure(statement: string, files: Record<string, string> = {}): Promise<[string, number | undefined]> {
  const { session } = tempSession(files, 'issue2-tx-path');
  const results: Result[] = [];
  for await (const r of session.execute(statement)) results.push(r);
  const error = results.find((r) => r.kind === 'error');
  assert.ok(error?.kind === 'error', statement);
  return [error.error.message, error.error.position?.column];
}

/** Column (1-based) of the APPLY TX path's text: just inside its quote or parenthesis. */
const atPath = (statement: string, path: string) => statement.indexOf(path) + 1;

const FILES = {
  'orders.xml': '<r><i id="1"/><i id="2"/></r>',
  'orders.json': '{"items":[{"id":1}]}',
  'orders.ndjson': '{"id":1}\n{"id":2}\n',
};

test('a bad APPLY TX path of SELECT FROM DRIVE is placed at the path, not at the file', async () => {
  for (const [statement, path, message] of [
    ["SELECT * FROM DRIVE 'orders.xml' APPLY TX '//i[';", '//i[', /^invalid XPath '\/\/i\['/],
    ["SELECT * FROM DRIVE 'orders.xml' FORMAT XML APPLY TX (//i[);", '//i[', /^invalid XPath/],
    ["SELECT * FROM DRIVE 'orders.json' APPLY TX '$[[';", '$[[', /^invalid document path '\$\[\['/],
    ["SELECT * FROM DRIVE 'orders.ndjson' FORMAT NDJSON APPLY TX '//i';", '//i', /^'\/\/i' is an XPath/],
  ] as const) {
    const [text, column] = await failure(statement, FILES);
    assert.match(text, message, statement);
    assert.equal(column, atPath(statement, path), statement);
  }
  // What is wrong with the file itself still points at the file.
  const statement = "SELECT * FROM DRIVE 'broken.json' APPLY TX 'items';";
  const [text, column] = await failure(statement, { 'broken.json': '{"items":' });
  assert.match(text, /invalid JSON/);
  assert.equal(column, statement.indexOf('broken.json') + 1);
});

test('an XPath syntax error of SELECT FROM HTTP … APPLY TX is placed at the path, not at the URL', async (t) => {
  const server = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml' }).end('<r><i id="1"/></r>');
  });
  t.after(() => server.close());
  const statement = `SELECT * FROM HTTP (GET ${server.url}/orders) APPLY TX '//i[';`;
  const [text, column] = await failure(statement);
  assert.match(text, /^invalid XPath '\/\/i\['/);
  assert.equal(column, atPath(statement, '//i['));
});
