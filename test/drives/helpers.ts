import { after } from 'node:test';
import Decimal from 'decimal.js';
import { Dataset, type Result } from '../../runtime/index';
import type { Column } from '../../runtime/dataset/types';
import type { Session } from '../../runtime/session';
import { tempSession } from '../helpers/session';

/** Every column type a file can carry, with the values that break naive writers: longs past 2^53, 30-digit decimals, nulls. */
export const TYPED_COLUMNS: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'big', type: { base: 'long' } },
  { name: 'amount', type: { base: 'decimal' } },
  { name: 'ratio', type: { base: 'double' } },
  { name: 'ok', type: { base: 'bool' } },
  { name: 'name', type: { base: 'string' } },
  { name: 'at', type: { base: 'datetime' } },
  { name: 'blob', type: { base: 'bytes' } },
];

export function typedRows(): Dataset {
  return Dataset.fromRows(TYPED_COLUMNS, [
    [
      1,
      9007199254740993n,
      new Decimal('123456789012345678901234567.125'),
      1.5,
      true,
      'Ann, "the first"',
      new Date('2024-03-01T10:00:00.250Z'),
      new Uint8Array([0, 1, 255]),
    ],
    [
      2,
      -9223372036854775808n,
      new Decimal('-0.500'),
      -0.25,
      false,
      'Bob\nline two',
      new Date('2024-03-02T23:59:59Z'),
      new Uint8Array([]),
    ],
    [3, null, null, null, null, null, null, null],
  ]);
}

const opened: Session[] = [];
after(async () => {
  for (const s of opened) await s.close();
});

/** A session in a temp folder holding `files`; every session made here is closed when the file's tests end. */
export function session(files: Record<string, string | Buffer> = {}): { session: Session; dir: string } {
  const made = tempSession(files, 'drivesink');
  opened.push(made.session);
  return made;
}

export function messages(results: Result[]): string[] {
  return results.flatMap((r) => (r.kind === 'message' ? [r.text] : []));
}

/** Cells in a form assert.deepEqual compares exactly: decimals as their digits with scale, bytes as hex, dates as ISO. */
export function plain(ds: Dataset): unknown[][] {
  return ds
    .rows()
    .map((row) =>
      row.map((v) =>
        v instanceof Decimal
          ? `D${v.toFixed()}`
          : v instanceof Uint8Array
            ? `0x${Buffer.from(v).toString('hex')}`
            : v instanceof Date
              ? v.toISOString()
              : v,
      ),
    );
}
