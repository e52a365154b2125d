import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerText, type ChangeLogHeader } from '../../runtime/changelog/header';

const base: ChangeLogHeader = {
  format: 'sqlcdc-changelog',
  version: 1,
  executionId: '1764157000000',
  pipeline: 'orders',
  name: 'orders',
  createdAt: '2026-11-26T12:00:00.000Z',
  keys: [],
  schema: [{ name: 'id', type: { base: 'int' } }],
  counts: { inserts: 1, updates: 0, deletes: 0 },
  frameRows: 16384,
  compression: 'brotli-1',
};

/** Strings JSON must escape, or that look like they might need it. */
const ODD = [
  'say "hi"',
  'back\\slash',
  'tab\there',
  'line\nbreak',
  '\u0000\u001f',
  'é ü 中文 😀',
  'lone \ud800 half',
  '\u007f',
  '</script>',
];

test('a header written field by field reads back as the header, whatever its strings hold', () => {
  const headers: ChangeLogHeader[] = [
    base,
    {
      ...base,
      pipeline: ODD[0],
      name: ODD[1],
      keys: ODD,
      schema: [
        ...ODD.map((name) => ({ name, type: { base: 'string' as const } })),
        { name: 'amount', type: { base: 'decimal', precision: 18, scale: 4 }, description: ODD[3] },
        { name: 'code', type: { base: 'char', size: 3 } },
        { name: 'notes', type: { base: 'string', size: 'max' } },
      ],
      counts: { inserts: 7, updates: 3, deletes: 2 },
      marker: ODD[5],
      frameRows: 2,
      compression: 'none',
      encryptedFor: { thumbprint: 'AB12', subject: ODD[2] },
      signedBy: { thumbprint: 'CD34', subject: 'CN=signer' },
    },
  ];
  for (const h of headers) assert.deepEqual(JSON.parse(headerText(h)), h);
});
