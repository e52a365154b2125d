import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseDecimal } from '../../runtime/dataset/decimal-scale';
import { Dataset } from '../../runtime/dataset/dataset';
import type { Column, Value } from '../../runtime/dataset/types';
import type { ChangeLogMeta } from '../../runtime/changelog/write';
import { findCertificate, type StoredCertificate } from '../../runtime/workspace/certificates';

export { tempDir } from '../helpers/session';

export const openssl = (args: string[], input?: Buffer): Buffer =>
  execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });

/**
 * A self-signed RSA certificate made by openssl in `<workspace>/certs/<name>.pem`, its key beside it
 * in `<name>.key` (or left out of the store with `withKey: false`, kept in `<workspace>/<name>.key`).
 */
export function makeCertificate(
  workspace: string,
  name: string,
  options: { withKey?: boolean } = {},
): StoredCertificate & { certFile: string; keyFile: string } {
  const certs = join(workspace, 'certs');
  mkdirSync(certs, { recursive: true });
  const certFile = join(certs, `${name}.pem`);
  const keyFile = options.withKey === false ? join(workspace, `${name}.key`) : join(certs, `${name}.key`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  ]);
  const thumbprint = openssl(['x509', '-in', certFile, '-noout', '-fingerprint', '-sha1'])
    .toString()
    .trim()
    .split('=')[1];
  return { ...findCertificate(workspace, thumbprint), certFile, keyFile };
}

/** One column of every base type, with the type details a change log must keep. */
export const ALL_TYPES: Column[] = [
  { name: 'id', type: { base: 'int' } },
  { name: 'big', type: { base: 'long' } },
  { name: 'name', type: { base: 'string', size: 40 } },
  { name: 'code', type: { base: 'char', size: 3 } },
  { name: 'flag', type: { base: 'bool' } },
  { name: 'tiny', type: { base: 'tinyint' } },
  { name: 'small', type: { base: 'short' } },
  { name: 'amount', type: { base: 'decimal', precision: 18, scale: 4 } },
  { name: 'ratio', type: { base: 'double' } },
  { name: 'single', type: { base: 'float' } },
  { name: 'at', type: { base: 'datetime' } },
  { name: 'uid', type: { base: 'guid' } },
  { name: 'blob', type: { base: 'bytes', size: 'max' }, description: 'raw payload' },
];

/** Rows covering the edges of each type; the last is all nulls. */
export function allTypeRows(): Value[][] {
  return [
    [
      1,
      2n ** 53n + 1n,
      'plain',
      'abc',
      true,
      0,
      -32768,
      parseDecimal('12.5000'),
      0.1,
      Math.fround(0.1),
      new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)),
      '0f8fad5b-d9cb-469f-a165-70867728950e',
      Uint8Array.from([0, 255, 1]),
    ],
    [
      -2147483648,
      -(2n ** 63n),
      '',
      '',
      false,
      255,
      32767,
      parseDecimal('-0.0001'),
      -0,
      Math.fround(3.4e38),
      new Date(-86_400_000 * 365 * 300),
      '00000000-0000-0000-0000-000000000000',
      new Uint8Array(0),
    ],
    [
      2147483647,
      2n ** 63n - 1n,
      'Ünïcødé ✓ 😀 中文',
      'xyz',
      true,
      7,
      0,
      parseDecimal('79228162514264337593543950335'),
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Date(Number.NaN),
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      Uint8Array.from({ length: 300 }, (_, i) => i % 256),
    ],
    [
      0,
      0n,
      'lone \ud800 surrogate',
      'q\n\r',
      false,
      1,
      1,
      parseDecimal('0.10'),
      Number.MIN_VALUE,
      Number.NEGATIVE_INFINITY,
      new Date(0),
      '12345678-1234-1234-1234-123456789abc',
      Uint8Array.from([10, 13]),
    ],
    ALL_TYPES.map(() => null),
  ];
}

export function allTypes(): Dataset {
  return Dataset.fromRows(ALL_TYPES, allTypeRows());
}

export function meta(upserts: Dataset, over: Partial<ChangeLogMeta> = {}): ChangeLogMeta {
  return {
    executionId: '1700000000000',
    pipeline: 'orders-sync',
    name: 'orders',
    keys: [],
    inserts: upserts.rowCount,
    updates: 0,
    ...over,
  };
}
