import type { BaseType } from '../dataset/types';

/**
 * How change detection sees a column type: the types of one family hold the same values, so a
 * column may move within its family (int to long, string[50] to string[max], decimal(10,2) to
 * decimal(18,4), double to float) without every row looking changed. Keys and row hashes are
 * computed from a value's family representation, never from its declared type.
 */
export type Family = 'text' | 'bool' | 'integer' | 'decimal' | 'float' | 'datetime' | 'bytes';

const FAMILIES: Record<BaseType, Family> = {
  string: 'text',
  char: 'text',
  guid: 'text',
  bool: 'bool',
  tinyint: 'integer',
  short: 'integer',
  int: 'integer',
  long: 'integer',
  decimal: 'decimal',
  double: 'float',
  float: 'float',
  datetime: 'datetime',
  bytes: 'bytes',
};

export function familyOf(base: BaseType): Family {
  return FAMILIES[base];
}
