import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PAGES, Pager, nextLink, type PageFacts } from '../../runtime/sources/http/paging';
import type { HttpResponse } from '../../runtime/http/request';

function facts(
  body: string,
  records: number,
  values: Record<string, string | null> = {},
  headers: Record<string, string> = {},
): PageFacts {
  const response: HttpResponse = {
    status: 200,
    headers,
    body: Buffer.from(body),
    mediaType: 'application/json',
    charset: 'utf-8',
    elapsedMs: 1,
  };
  return { response, records: () => records, valueAt: (path) => values[path] ?? null };
}

test('a pager stops after MAX_PAGES pages and says so', () => {
  const pager = new Pager({ mode: 'page' }, new URL('http://127.0.0.1/p'));
  let url: URL | undefined = pager.start();
  let pages = 0;
  while (url) {
    pages++;
    url = pager.next(url, facts(`page ${pages}`, 1));
  }
  assert.equal(pages, MAX_PAGES);
  assert.equal(pager.truncated, true);
});

test('offset and page start from the value the URL carries', () => {
  const offset = new Pager({ mode: 'offset', param: 'from' }, new URL('http://h/x?from=20'));
  assert.equal(offset.next(offset.start(), facts('a', 5))?.href, 'http://h/x?from=25');
  const page = new Pager({ mode: 'page' }, new URL('http://h/x?page=0'));
  const second = page.next(page.start(), facts('a', 5))!;
  assert.equal(second.href, 'http://h/x?page=1');
  assert.equal(page.next(second, facts('b', 5))?.href, 'http://h/x?page=2');
  assert.equal(page.next(second, facts('c', 0)), undefined);
});

test('Link headers: rel=next among other relations, quoted or not', () => {
  assert.equal(nextLink('<https://h/p?page=2>; rel="next", <https://h/p?page=9>; rel="last"'), 'https://h/p?page=2');
  assert.equal(nextLink('<https://h/p?page=1>; rel="prev first", </p?page=3>; rel=next'), '/p?page=3');
  assert.equal(nextLink('<https://h/p?page=1>; rel="prev"'), undefined);
  assert.equal(nextLink(undefined), undefined);
});
