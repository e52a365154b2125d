import type { Family, FunctionDef, FunctionImpl } from './types';

/** A registry entry; `arity` as [min, max] or one number for a fixed count. */
export function define(
  family: Family,
  names: string | string[],
  signature: string,
  arity: number | [number, number],
  description: string,
  example: string,
  expected: string | undefined,
  impl: FunctionImpl,
): FunctionDef {
  return {
    names: (Array.isArray(names) ? names : [names]).map((n) => n.toLowerCase()),
    family,
    signature,
    arity: typeof arity === 'number' ? [arity, arity] : arity,
    description,
    example,
    expected,
    impl,
  };
}

/** The three text encodings of the suffixed families: none = UTF-8, a = ASCII, u = Unicode (UTF-16LE). */
export const ENCODINGS = [
  { suffix: '', encoding: 'utf8', label: 'UTF-8' },
  { suffix: 'a', encoding: 'ascii', label: 'ASCII' },
  { suffix: 'u', encoding: 'unicode', label: 'Unicode (UTF-16LE)' },
] as const;
