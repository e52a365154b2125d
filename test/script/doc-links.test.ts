import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';

/**
 * Tables render: every run of `|` lines starts with a header row and its `| --- |` line (a paragraph
 * dropped inside a table leaves the rows after it as plain text). Links between the user docs (README.md, DEVELOPERS.md, docs/*.md and the notebooks' markdown cells)
 * lead somewhere: the file exists and, for `page.md#heading`, the page has that heading, by GitHub's
 * rule for heading anchors, or an `<a id>` of that name.
 */
const ROOT = resolve(__dirname, '../../..');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Markdown outside fenced code blocks, where `#` starts a comment and `](` is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  // An anchor of its own in the text (`<a id="answer-size"></a>`), for a paragraph without a heading.
  for (const m of prose(markdown).matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

interface Page {
  path: string;
  markdown: string;
}

function pages(): Page[] {
  const md = (path: string): Page => ({ path, markdown: readFileSync(path, 'utf8') });
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => md(join(ROOT, 'docs', f)));
  const notebooks = readdirSync(join(ROOT, 'notebooks'))
    .filter((f) => f.endsWith('.ipynb'))
    .map((f) => {
      const path = join(ROOT, 'notebooks', f);
      const cells = (JSON.parse(readFileSync(path, 'utf8')) as { cells: { cell_type: string; source: string[] }[] })
        .cells;
      const markdown = cells
        .filter((c) => c.cell_type === 'markdown')
        .map((c) => c.source.join(''))
        .join('\n\n');
      return { path, markdown };
    });
  return [md(join(ROOT, 'README.md')), md(join(ROOT, 'DEVELOPERS.md')), ...docs, ...notebooks];
}

/** Every relative link of a page that leads nowhere, as `page: target (why)`. */
function brokenLinks(page: Page): string[] {
  const broken: string[] = [];
  for (const m of prose(page.markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1];
    if (/^[a-z]+:/i.test(link)) continue;
    const [file, fragment] = link.split('#');
    const target = file ? resolve(dirname(page.path), file) : page.path;
    const name = `${page.path.slice(ROOT.length + 1)}: ${link}`;
    if (!existsSync(target)) broken.push(`${name} (no such file)`);
    else if (fragment && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(fragment))
      broken.push(`${name} (no such heading)`);
  }
  return broken;
}

test('heading anchors follow GitHub: punctuation dropped, repeated headings numbered', () => {
  assert.equal(slug('The `sqlcdc` command in every folder'), 'the-sqlcdc-command-in-every-folder');
  assert.equal(slug('SELECT FROM HTTP: paging, auth'), 'select-from-http-paging-auth');
  assert.deepEqual([...anchorsOf('# A\n```sh\n# not a heading\n```\n## A\n')], ['a', 'a-1']);
});

test('a link to a missing page or heading is found', () => {
  const page = { path: join(ROOT, 'docs', 'x.md'), markdown: '[a](cli.md) [b](cli.md#no-such-heading) [c](nope.md)' };
  assert.deepEqual(brokenLinks(page), [
    'docs/x.md: cli.md#no-such-heading (no such heading)',
    'docs/x.md: nope.md (no such file)',
  ]);
});

test('every link of README.md, DEVELOPERS.md, docs/*.md and the notebooks leads to a file and heading that exist', () => {
  assert.deepEqual(pages().flatMap(brokenLinks), []);
});

test('docs/README.md lists every page of docs/ once', () => {
  const index = readFileSync(join(ROOT, 'docs', 'README.md'), 'utf8');
  const listed = [...index.matchAll(/^\| \[[^\]]+\]\(([^)#]+)\)/gm)].map((m) => m[1]).sort();
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort();
  assert.deepEqual(listed, pages);
});

/** The first line of each run of table lines that has no `| --- |` line under its first row. */
function headlessTables(markdown: string): string[] {
  const lines = prose(markdown).split('\n');
  const headless: string[] = [];
  lines.forEach((line, i) => {
    const starts = line.startsWith('|') && !lines[i - 1]?.startsWith('|');
    if (starts && !/^\|(\s*:?-+:?\s*\|)+\s*$/.test(lines[i + 1] ?? '')) headless.push(line.slice(0, 60));
  });
  return headless;
}

test('a table row cut off from its header by a paragraph is found', () => {
  assert.deepEqual(headlessTables('| a | b |\n| - | - |\n| 1 | 2 |\n\ntext\n| 3 | 4 |\n'), ['| 3 | 4 |']);
});

test('every table of README.md, DEVELOPERS.md, docs/*.md and the notebooks has its header', () => {
  assert.deepEqual(
    pages().flatMap((p) => headlessTables(p.markdown).map((row) => `${p.path.slice(ROOT.length + 1)}: ${row}`)),
    [],
  );
});
