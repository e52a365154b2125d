import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptError } from '../../runtime/errors';
import { tempSession } from '../helpers/session';

/**
 * Issue 16, "deep nesting ends in a raw 'Maximum call stack size exceeded'", for documents: a JSON file
 * of arrays or objects 100,000 levels deep (JSON.parse reads it) is a ScriptError saying it is nested
 * too deeply, placed at the file's name, and the session goes on.
 */
const N = 100_000;

test('a JSON document nested 100,000 levels deep: "nested too deeply" at the file, not V8’s stack overflow', async () => {
  const { session } = tempSession(
    {
      'arrays.json': '['.repeat(N) + '1' + ']'.repeat(N),
      'objects.json': '{"a":'.repeat(N) + '1' + '}'.repeat(N),
    },
    'issue16-deep',
  );
  try {
    for (const cell of [
      "SELECT * FROM DRIVE 'arrays.json';",
      "SELECT * FROM DRIVE 'objects.json';",
      "SELECT * FROM DRIVE 'objects.json' APPLY TX '$';",
    ]) {
      await assert.rejects(session.run(cell), (e: unknown) => {
        assert.ok(e instanceof ScriptError, String(e));
        assert.match(e.message, /is nested too deeply \(arrays or objects inside one another/);
        assert.doesNotMatch(e.message, /call stack/);
        assert.deepEqual(e.position && [e.position.line, e.position.column], [1, 22], cell);
        return true;
      });
    }
    const [printed] = await session.run("PRINT 'still here';");
    assert.ok(printed.kind === 'message' && printed.text === 'still here');
  } finally {
    await session.close();
  }
});

test('an XML document nested 100,000 levels deep is refused at the reader’s limit of 5,000, at the file', async () => {
  // Without the limit, XPath over it would take minutes: the xpath package's descendant steps cost the square of the depth.
  const { session } = tempSession(
    {
      'deep.xml': '<a>'.repeat(N) + 'x' + '</a>'.repeat(N),
      'limit.xml': '<a>'.repeat(5000) + 'x' + '</a>'.repeat(5000),
    },
    'issue16-deep-xml',
  );
  try {
    await assert.rejects(session.run("SELECT * FROM DRIVE 'deep.xml';"), (e: unknown) => {
      assert.ok(e instanceof ScriptError, String(e));
      assert.match(
        e.message,
        /^deep\.xml: XML nested too deeply: elements inside one another more than 5,000 levels down$/,
      );
      assert.deepEqual(e.position && [e.position.line, e.position.column], [1, 22]);
      return true;
    });
    const [read] = await session.run("SELECT * FROM DRIVE 'limit.xml';");
    assert.ok(read.kind === 'table' && read.dataset.rowCount === 1, 'a document at the limit is read');
  } finally {
    await session.close();
  }
});
