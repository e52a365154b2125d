import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { ScriptError } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import { scaleOf } from '../../runtime/dataset/decimal-scale';
import type { Value } from '../../runtime/dataset/types';
import Decimal from 'decimal.js';
import { startHttpServer } from '../helpers/http-server';
import { load, plain, schema, sessionWith } from './helpers';

const LIMITS = { timeout: 120_000 };

test('an interrupt ends SELECT FROM DRIVE of a large XML document while it is being shaped', LIMITS, async () => {
  const { session } = sessionWith({ 'big.xml': bigXml() });
  const controller = new AbortController();
  const results: Result[] = [];
  for await (const r of session.execute("PRINT 'reading';\nSELECT * FROM DRIVE 'big.xml';", {
    signal: controller.signal,
  })) {
    results.push(r);
    // While the document is shaped the event loop keeps turning, so this interrupt is seen.
    if (r.kind === 'message') setTimeout(() => controller.abort(), 20);
  }
  const error = results.find((r) => r.kind === 'error')?.error;
  assert.equal(error?.message, 'cancelled');
  assert.equal(error.statement, 'SELECT FROM DRIVE');
  assert.equal(session.dataset.rowCount, 0, 'the pipeline is as before the statement');
});

/** About 5 MB: read in a few milliseconds, parsed and shaped in a few hundred (a tree node per element and text). */
function bigXml(): string {
  const rows = Array.from({ length: 100_000 }, (_, i) => `<row><id>${i}</id><name>name ${i}</name></row>`);
  return `<rows>${rows.join('')}</rows>`;
}

/**
 * The error of `cell` (given the URL of a server answering the large XML document) when an interrupt
 * comes just after the shaping began: 20 ms after the answer was sent whole (`after: 'answer'`), or after
 * the cell's PRINT (`after: 'message'`), so neither the machine's load nor its speed moves the interrupt
 * out of the statement under test.
 */
async function interruptedWhileShaping(
  t: TestContext,
  after: 'answer' | 'message',
  cell: (url: string) => string,
): Promise<ScriptError | undefined> {
  const body = bigXml();
  const controller = new AbortController();
  const interrupt = () => setTimeout(() => controller.abort(), 20);
  const server = await startHttpServer((_req, res) => {
    res.setHeader('content-type', 'application/xml');
    res.end(body, after === 'answer' ? interrupt : undefined);
  });
  t.after(() => server.close());
  const { session } = sessionWith({});
  const results: Result[] = [];
  for await (const r of session.execute(cell(server.url), { signal: controller.signal })) {
    results.push(r);
    if (after === 'message' && r.kind === 'message') interrupt();
  }
  return results.find((r) => r.kind === 'error')?.error;
}

test('an interrupt ends SELECT FROM HTTP of a large XML answer while APPLY TX shapes it', LIMITS, async (t) => {
  const error = await interruptedWhileShaping(
    t,
    'answer',
    (url) => `SELECT * FROM HTTP (GET ${url}/rows) APPLY TX '$.row';`,
  );
  assert.equal(error?.message, 'cancelled');
  assert.equal(error.statement, 'SELECT FROM HTTP');
});

test('an interrupt ends APPLY TX on a large document held in a column while it is shaped', LIMITS, async (t) => {
  const error = await interruptedWhileShaping(
    t,
    'message',
    (url) => `SELECT * FROM HTTP (GET ${url}/rows);\nPRINT 'shaping';\nAPPLY TX '$.row';`,
  );
  assert.equal(error?.message, 'cancelled');
  assert.equal(error.statement, 'APPLY TX');
});

test('an interrupt ends APPLY HTTP while APPLY TX shapes its large XML answer', LIMITS, async (t) => {
  const error = await interruptedWhileShaping(
    t,
    'answer',
    (url) => `APPLY HTTP (GET ${url}/rows) APPLY TX '$.row' WITH PROCESSING 'replace';`,
  );
  assert.equal(error?.message, 'cancelled');
  assert.equal(error.statement, 'APPLY HTTP');
});

/** Pages of `n` rows in JSON: page k links to page k + 1 at `paging.next`, up to page 3 (and a token at `paging.token`). */
function linkedPage(url: string, k: number, n: number): string {
  const rows = Array.from({ length: n }, (_, i) => ({ page: k, i, name: `row ${k}-${i}`, price: '1.50' }));
  const next = k < 3 ? `${url}/p${k + 1}` : null;
  return JSON.stringify({ rows, paging: { next, token: next === null ? null : `t${k + 1}` } });
}

test(
  'PAGING_PATH is read where a large answer is shaped: the same pages and rows as small answers',
  LIMITS,
  async (t) => {
    const server = await startHttpServer((req, res) => {
      const k = Number(/p(\d)/.exec(req.url)?.[1] ?? 1);
      res.setHeader('content-type', 'application/json');
      res.end(
        linkedPage(
          `${server.url}${req.url.startsWith('/large') ? '/large' : '/small'}`,
          k,
          req.url.startsWith('/large') ? 25_000 : 2,
        ),
      );
    });
    t.after(() => server.close());
    const { session } = sessionWith({});
    const read = (size: string) =>
      load(
        session,
        `SELECT * FROM HTTP (GET ${server.url}/${size}/p1) APPLY TX 'rows' WITH PAGING 'link' PAGING_PATH 'paging.next';`,
      );
    const small = await read('small');
    const large = await read('large');
    assert.equal(small.rowCount, 6);
    assert.equal(large.rowCount, 75_000, 'three pages of 25,000 rows, 1.4 MB each');
    assert.deepEqual(schema(large), schema(small));
    assert.deepEqual(plain(large).slice(0, 2), plain(small).slice(0, 2));
    assert.deepEqual(plain(large)[74_999], [3, 24_999, 'row 3-24999', plain(small)[5][3]]);
    // A PAGING_PATH that is no path fails at the same place, with the same message, either way.
    const errorOf = (size: string) =>
      session
        .run(
          `SELECT * FROM HTTP (GET ${server.url}/${size}/p1) APPLY TX 'rows'\n  WITH PAGING 'token' PAGING_PATH 'paging.[';`,
        )
        .then(
          () => assert.fail('no error'),
          (e: ScriptError) => e,
        );
    const [smallError, largeError] = [await errorOf('small'), await errorOf('large')];
    assert.equal(largeError.message, smallError.message);
    assert.deepEqual(largeError.position, smallError.position);
  },
);

test('an interrupt ends a paged read with PAGING_PATH while its large answer is shaped', LIMITS, async (t) => {
  const error = await interruptedWhileShaping(
    t,
    'answer',
    (url) => `SELECT * FROM HTTP (GET ${url}/rows) APPLY TX '$.row' WITH PAGING 'link' PAGING_PATH '$.next';`,
  );
  assert.equal(error?.message, 'cancelled');
  assert.equal(error.statement, 'SELECT FROM HTTP');
});

test(
  'a large answer shaped off the main thread gives the rows a small one does; a path selecting nothing is placed',
  LIMITS,
  async (t) => {
    const row = (i: number) => `<row id="${i}"><name>n${i}</name><price>1.50</price></row>`;
    const doc = (n: number) => `<rows>${Array.from({ length: n }, (_, i) => row(i)).join('')}</rows>`;
    const server = await startHttpServer((req, res) => {
      res.setHeader('content-type', 'application/xml');
      res.end(doc(req.url.includes('large') ? 30_000 : 3));
    });
    t.after(() => server.close());
    const { session } = sessionWith({});
    const small = await load(session, `SELECT * FROM HTTP (GET ${server.url}/small) APPLY TX '$.row';`);
    const large = await load(session, `SELECT * FROM HTTP (GET ${server.url}/large) APPLY TX '$.row';`);
    assert.equal(large.rowCount, 30_000);
    assert.deepEqual(schema(large), schema(small));
    assert.deepEqual(plain(large).slice(0, 3), plain(small));
    const errorOf = (cell: string) =>
      session.run(cell).then(
        () => assert.fail(`no error: ${cell}`),
        (e: ScriptError) => e,
      );
    const cell = `SELECT * FROM HTTP (GET ${server.url}/large)\n  APPLY TX '$.nothing';`;
    const large2 = await errorOf(cell);
    const small2 = await errorOf(cell.replace('/large', '/small'));
    assert.match(large2.message, /^APPLY TX path '\$\.nothing' selects nothing in GET http:\/\/.*\/large/);
    assert.equal(large2.message, small2.message.replace('/small', '/large'));
    assert.deepEqual(large2.position, small2.position);
  },
);

/** Cells comparable across readers: a decimal with its scale (12.50 is not 12.5). */
function exact(v: Value): unknown {
  return v instanceof Decimal ? `${v.toFixed(scaleOf(v))}m` : v;
}

test('a large JSON document shaped off the main thread gives the rows and types a small one does', LIMITS, async () => {
  const head = [
    { id: 1, big: 3000000000, amount: 12.5, wide: 1.5, ok: true, tags: ['a'], note: 'x' },
    { id: 2, big: 4, amount: 7, wide: 2, ok: false, tags: null, note: null },
  ];
  // More digits than a double holds make `wide` a decimal column, whose cells keep the scale they were written with.
  const text = (n: number) =>
    JSON.stringify([
      ...head,
      ...Array.from({ length: n }, (_, i) => ({ id: i + 3, big: 5, amount: 1.25, wide: 0, ok: true, note: 'p' })),
    ]).replace('"wide":1.5', '"wide":1.12345678901234567890');
  const { session } = sessionWith({ 'small.json': text(1), 'large.json': text(40_000) });
  const small = await load(session, "SELECT * FROM DRIVE 'small.json';");
  const large = await load(session, "SELECT * FROM DRIVE 'large.json';");
  assert.ok(large.rowCount > 40_000);
  assert.deepEqual(schema(large), schema(small));
  assert.deepEqual(plain(large).slice(0, 3), plain(small).slice(0, 3));
  assert.deepEqual(
    large.rows(0, 3).map((r) => r.map(exact)),
    small.rows(0, 3).map((r) => r.map(exact)),
  );
});
