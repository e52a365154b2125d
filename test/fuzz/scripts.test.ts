import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { ScriptError } from '../../runtime/errors';
import { tempSession } from '../helpers/session';
import { JS_FAILURE, seeded } from './helpers';

const ROOT = resolve(__dirname, '../../..');

/** The code cells of the notebooks that run on local files (the others call servers). */
function notebookCells(): string[] {
  return ['getting-started', 'transformations', 'functions'].flatMap((name) => {
    const nb = JSON.parse(readFileSync(join(ROOT, 'notebooks', `${name}.ipynb`), 'utf8')) as {
      cells: { cell_type: string; source: string[] }[];
    };
    return nb.cells.filter((c) => c.cell_type === 'code').map((c) => c.source.join(''));
  });
}

/** What a mutation inserts: script syntax, odd characters, huge tokens, deep nesting. */
const INSERTS = [
  '\0',
  '\ud800',
  '\udc00',
  '\ufeff',
  '\r',
  '\t',
  '\u2028',
  '😀',
  'x'.repeat(5000),
  '9'.repeat(400),
  '1e999',
  '(('.repeat(300),
  '#toupper('.repeat(200),
  "'",
  '"',
  '--',
  '{{',
  '}}',
  '[',
  ']',
  '(',
  ')',
  ';',
  '#',
  '@',
  '@sql(',
  '#data.calc(',
  "''",
  ' OR ',
  'NULL',
  '%',
  '\n',
];

/** Tokens as the language sees them, roughly: a mutation drops, doubles or swaps whole ones. */
const TOKENS = /\s+|'(?:[^']|'')*'?|[A-Za-z_]\w*|\d+|./gs;

/**
 * Notebook cells mutated by seeded edits (cut at a token, a token dropped, doubled or swapped, an odd
 * character inserted between or inside tokens), run through Session.execute on the notebooks' data:
 * each runs or stops on a ScriptError whose position is inside the cell, and no JavaScript failure.
 */
test('mutated notebook cells run or give a ScriptError placed inside the cell, never a JavaScript failure', async () => {
  const { session, dir } = tempSession({}, 'fuzz-scripts');
  cpSync(join(ROOT, 'notebooks', 'data'), join(dir, 'data'), { recursive: true });
  const cells = notebookCells();
  const random = seeded(707);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  let errors = 0;
  for (let i = 0; i < 400; i++) {
    let tokens: string[] = [...(pick(cells).match(TOKENS) ?? [])];
    for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
      const at = Math.floor(random() * (tokens.length + 1));
      const r = random();
      if (r < 0.15) tokens = tokens.slice(0, at);
      else if (r < 0.35) tokens.splice(at, 1);
      else if (r < 0.5) tokens.splice(at, 0, tokens[at] ?? ';');
      else if (r < 0.6) {
        const other = Math.floor(random() * tokens.length);
        [tokens[at], tokens[other]] = [tokens[other], tokens[at]];
      } else if (r < 0.75) tokens.splice(at, 0, pick(INSERTS));
      else {
        const token = tokens[at] ?? '';
        const inside = Math.floor(random() * (token.length + 1));
        tokens[at] = token.slice(0, inside) + pick(INSERTS) + token.slice(inside);
      }
    }
    const cell = tokens.filter((t) => t !== undefined).join('');
    session.reset();
    for await (const r of session.execute(cell)) {
      if (r.kind !== 'error') continue;
      errors++;
      const e = r.error;
      assert.ok(e instanceof ScriptError, JSON.stringify(cell));
      assert.doesNotMatch(e.message, JS_FAILURE, JSON.stringify(cell));
      if (!e.position) continue;
      const lines = cell.split('\n');
      const { line, column, offset } = e.position;
      assert.ok(line >= 1 && line <= lines.length, `${JSON.stringify(cell)}: line ${line} of ${lines.length}`);
      assert.ok(column >= 1 && column <= lines[line - 1].length + 1, `${JSON.stringify(cell)}: column ${column}`);
      assert.ok(offset >= 0 && offset <= cell.length, `${JSON.stringify(cell)}: offset ${offset}`);
    }
  }
  assert.ok(errors > 100, `most mutations are errors (${errors})`);
});
