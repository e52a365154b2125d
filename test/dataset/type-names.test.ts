import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTypeName, sameType, typeName } from '../../runtime/dataset/type-names';
import type { ColumnType } from '../../runtime/dataset/types';
import { ScriptError } from '../../runtime/errors';

/** Every row of spec 2.6, both notations, plus the .NET names CONVERT uses. */
const CASES: Array<[string, ColumnType]> = [
  ['bool', { base: 'bool' }],
  ['boolean', { base: 'bool' }],
  ['BIT', { base: 'bool' }],
  ['BOOL', { base: 'bool' }],
  ['tinyint', { base: 'tinyint' }],
  ['BYTE', { base: 'tinyint' }],
  ['byte[]', { base: 'bytes' }],
  ['byte[16]', { base: 'bytes', size: 16 }],
  ['image', { base: 'bytes' }],
  ['binary(8)', { base: 'bytes', size: 8 }],
  ['varbinary(100)', { base: 'bytes', size: 100 }],
  ['binary(max)', { base: 'bytes', size: 'max' }],
  ['VARBINARY(MAX)', { base: 'bytes', size: 'max' }],
  ['char', { base: 'char' }],
  ['char[3]', { base: 'char', size: 3 }],
  ['CHAR', { base: 'char' }],
  ['CHAR[10]', { base: 'char', size: 10 }],
  ['datetime', { base: 'datetime' }],
  ['DATE', { base: 'datetime' }],
  ['DATETIME', { base: 'datetime' }],
  ['DATETIME2', { base: 'datetime' }],
  ['decimal', { base: 'decimal' }],
  ['decimal(12)', { base: 'decimal', precision: 12, scale: 0 }],
  ['decimal(10, 2)', { base: 'decimal', precision: 10, scale: 2 }],
  ['DECIMAL', { base: 'decimal' }],
  ['DECIMAL(5)', { base: 'decimal', precision: 5, scale: 0 }],
  ['DECIMAL(38,38)', { base: 'decimal', precision: 38, scale: 38 }],
  ['double', { base: 'double' }],
  ['DOUBLE', { base: 'double' }],
  ['float', { base: 'float' }],
  ['single', { base: 'float' }],
  ['FLOAT', { base: 'float' }],
  ['SINGLE', { base: 'float' }],
  ['REAL', { base: 'float' }],
  ['guid', { base: 'guid' }],
  ['GUID', { base: 'guid' }],
  ['int', { base: 'int' }],
  ['int32', { base: 'int' }],
  ['INT', { base: 'int' }],
  ['long', { base: 'long' }],
  ['int64', { base: 'long' }],
  ['BIGINT', { base: 'long' }],
  ['short', { base: 'short' }],
  ['int16', { base: 'short' }],
  ['SMALLINT', { base: 'short' }],
  ['string', { base: 'string' }],
  ['string[50]', { base: 'string', size: 50 }],
  ['string[max]', { base: 'string', size: 'max' }],
  ['XML', { base: 'string' }],
  ['TEXT', { base: 'string' }],
  ['NTEXT', { base: 'string' }],
  ['NVARCHAR', { base: 'string' }],
  ['NVARCHAR(40)', { base: 'string', size: 40 }],
  ['NVARCHAR(MAX)', { base: 'string', size: 'max' }],
  ['VARCHAR', { base: 'string' }],
  ['VARCHAR(7)', { base: 'string', size: 7 }],
  ['varchar(max)', { base: 'string', size: 'max' }],
  ['string(256)', { base: 'string', size: 256 }],
  ['SYSNAME', { base: 'string', size: 256 }],
  ['System.Int32', { base: 'int' }],
  ['System.String', { base: 'string' }],
  ['System.Decimal', { base: 'decimal' }],
  ['System.DateTime', { base: 'datetime' }],
  ['System.Int64', { base: 'long' }],
  ['System.Boolean', { base: 'bool' }],
  ['System.Double', { base: 'double' }],
  ['System.Single', { base: 'float' }],
  ['System.Int16', { base: 'short' }],
  ['System.Byte', { base: 'tinyint' }],
  ['System.Guid', { base: 'guid' }],
  ['System.Byte[]', { base: 'bytes' }],
  ['System.Char', { base: 'char' }],
];

test('every type name of spec 2.6 parses, in both notations and any case', () => {
  for (const [text, expected] of CASES) {
    assert.deepEqual(parseTypeName(text), expected, text);
    assert.deepEqual(parseTypeName(text.toLowerCase()), expected, text.toLowerCase());
    assert.deepEqual(parseTypeName(text.toUpperCase()), expected, text.toUpperCase());
  }
});

test('spaces around the name and inside the arguments are allowed', () => {
  assert.deepEqual(parseTypeName('  decimal ( 10 ,2 ) '), { base: 'decimal', precision: 10, scale: 2 });
  assert.deepEqual(parseTypeName('string [ 20 ]'), { base: 'string', size: 20 });
});

test('typeName gives the type notation and reads back to the same type', () => {
  const shown = new Map<string, string>([
    ['BIGINT', 'long'],
    ['decimal(10, 2)', 'decimal(10,2)'],
    ['decimal(12)', 'decimal(12,0)'],
    ['NVARCHAR(40)', 'string[40]'],
    ['NVARCHAR(MAX)', 'string[max]'],
    ['SYSNAME', 'string[256]'],
    ['image', 'byte[]'],
    ['binary(8)', 'byte[8]'],
    ['CHAR[10]', 'char[10]'],
    ['REAL', 'float'],
    ['System.Guid', 'guid'],
  ]);
  for (const [text, name] of shown) assert.equal(typeName(parseTypeName(text)), name, text);
  for (const [text, type] of CASES) {
    const back = parseTypeName(typeName(type));
    assert.ok(sameType(back, type), `${text} → ${typeName(type)}`);
  }
});

test('unknown names and bad arguments are semantic errors that list the valid types', () => {
  const bad: Array<[string, RegExp]> = [
    ['integer', /unknown type 'integer'/],
    ['money', /unknown type 'money'/],
    ['', /unknown type ''/],
    ['int(5)', /'int' takes no \(\) argument/],
    ['SYSNAME(10)', /takes no/],
    ['string[0]', /positive integer or max/],
    ['string[-1]', /positive integer or max/],
    ['char[max]', /positive integer\b(?! or max)/],
    ['string[10)', /takes no/],
    ['decimal(39, 2)', /precision must be 1\.\.38/],
    ['decimal(5, 6)', /scale cannot exceed the precision/],
    ['decimal(1, 2, 3)', /decimal\(p\) or decimal\(p, s\)/],
    ['decimal[5]', /decimal\(p\) or decimal\(p, s\)/],
    ['byte[][4]', /takes no/],
  ];
  for (const [text, message] of bad) {
    assert.throws(
      () => parseTypeName(text),
      (e: unknown) => {
        assert.ok(e instanceof ScriptError, text);
        assert.equal(e.kind, 'semantic');
        assert.match(e.message, message, text);
        assert.match(e.message, /valid types: bool, boolean/);
        return true;
      },
      text,
    );
  }
});
