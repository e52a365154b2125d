import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptError } from '../../runtime/errors';
import { options } from './helpers';

test('ON KEYS with none of INSERTS/UPDATES/DELETES reports inserts and updates; DELETES only when asked', () => {
  const o = options({ keys: 'id' });
  assert.deepEqual([o.inserts, o.updates, o.deletes], [true, true, false]);
  const d = options({ keys: 'id', deletes: true });
  assert.deepEqual([d.inserts, d.updates, d.deletes], [false, false, true]);
  const all = options({ keys: 'id', inserts: true, updates: true, deletes: true });
  assert.deepEqual([all.inserts, all.updates, all.deletes], [true, true, true]);
});

test('KEYS and OBSERVE are comma-separated lists, trimmed, brackets removed', () => {
  const o = options({ keys: ' id , [order no] ', observe: 'a,b' });
  assert.deepEqual(o.keys, ['id', 'order no']);
  assert.deepEqual(o.observe, ['a', 'b']);
  assert.equal(options({ keys: 'id' }).observe, undefined);
});

test('without ON KEYS there is no change detection, and the CDC keywords are errors naming what needs keys', () => {
  assert.deepEqual(options().keys, []);
  assert.equal(options({ marker: 'op' }).marker, 'op');
  for (const [clauses, named] of [
    [{ deletes: true }, 'DELETES'],
    [{ observe: 'a' }, 'OBSERVE'],
    [{ ignoreDups: true }, 'IGNORE_DUPS'],
    [{ initOnFirstRun: true }, 'INIT_ON_FIRST_RUN'],
    [{ inserts: true, updates: true }, 'INSERTS, UPDATES'],
  ] as const) {
    assert.throws(
      () => options(clauses),
      (e: unknown) =>
        e instanceof ScriptError &&
        e.kind === 'semantic' &&
        e.message.startsWith(`${named} ${named.includes(',') ? 'need' : 'needs'} ON KEYS`),
    );
  }
});

test('a column listed twice, an empty list and an empty CDCMARKER are errors', () => {
  assert.throws(() => options({ keys: 'id, ID' }), /ON KEYS lists 'ID' twice/);
  assert.throws(() => options({ keys: 'id', observe: 'a,b,a' }), /OBSERVE lists 'a' twice/);
  assert.throws(() => options({ keys: ' , ' }), /ON KEYS lists no column/);
  assert.throws(() => options({ keys: 'id', marker: ' ' }), /CDCMARKER needs a field name/);
});
