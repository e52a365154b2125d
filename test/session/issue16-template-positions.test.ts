import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptError } from '../../runtime/errors';
import { tempSession } from '../helpers/session';

/**
 * A template's positions are found by one walk of its text (PositionCursor), not by a walk from its
 * start for each field and call: 20,000 fields in one template took 8.5 s, now 36 ms (measured, not
 * asserted: the suite has no timing assertions). These pin what the walk must still get right: the
 * place of an error after many parts, across lines and quotes written doubled, and a cell of many
 * fields printing what it should.
 */
function where(cell: string, needle: string): { line: number; column: number } {
  const before = cell.slice(0, cell.indexOf(needle)).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

test('an error after thousands of fields, doubled quotes and line breaks is placed where it was written', async () => {
  const { session } = tempSession({}, 'issue16-positions');
  try {
    const fields = '{{@executionId}}'.repeat(2000);
    const cells = [
      `PRINT 'it''s ${fields}\n${fields} ''q'' #nosuch(1)';`,
      `PRINT '#toupper(${fields}) it''s\n  #left(${fields}, 2) #trim(#nosuch(''x''))';`,
      `PRINT '${fields}\n''''\n{{name';`,
    ];
    for (const cell of cells) {
      await assert.rejects(session.run(cell), (e: unknown) => {
        assert.ok(e instanceof ScriptError, String(e));
        const needle = cell.includes('#nosuch') ? '#nosuch' : '{{name';
        assert.deepEqual(e.position && { line: e.position.line, column: e.position.column }, where(cell, needle));
        assert.equal(e.position?.offset, cell.indexOf(needle));
        return true;
      });
    }
    const out = await session.run(`PRINT '${'{{@executionId}}-'.repeat(20_000)}';`);
    const printed = out.flatMap((r) => (r.kind === 'message' ? [r.text] : []));
    assert.equal(printed.length, 1);
    assert.match(printed[0], /^(\d{13,}-){20000}$/);
  } finally {
    await session.close();
  }
});
