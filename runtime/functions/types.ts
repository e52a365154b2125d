import type { Position } from '../errors';
import type { Value } from '../dataset/types';
import type { Scope } from '../scope';

/** The encoding prefix of a `{{prefix:field}}` template field. */
export type BinaryPrefix = 'ascii' | 'base64' | 'hex' | 'utf8' | 'unicode';

export type Family = 'data' | 'string' | 'date' | 'other' | 'operator';

/** What a function implementation sees besides its arguments. One object per call site, reused per row. */
export interface CallContext {
  /** What the call evaluates in: session settings, the run's statebag, the statement's dataset. */
  scope: Scope;
  /** The name as the user wrote it, with its sigil (`#toupper`): errors name it. */
  fn: string;
  pos?: Position;
  /** Per argument: written in '…' (single) or "…" (double) quotes, or bare. */
  quotes: readonly ('' | "'" | '"')[];
  /** The text is a SQL command (EXEC ON DB, SELECT FROM DB…): #statebag('k') of a missing key is NULL. */
  sql: boolean;
}

export type FunctionImpl = (args: Value[], ctx: CallContext) => Value;

/** One entry of the function registry: the single source for evaluation, completion, inspect and docs. */
export interface FunctionDef {
  /** Lowercase names without sigil; the first is the canonical one, the others are aliases. */
  names: string[];
  family: Family;
  /** How it is called, e.g. `#left(a, n)`. */
  signature: string;
  description: string;
  /** A call as a user writes it, e.g. `#left(hello, 2)`. */
  example: string;
  /** The example's output when deterministic (checked by the tests); absent for clocks and randomness. */
  expected?: string;
  /** Minimum and maximum argument count (max Infinity for variadic). */
  arity: [number, number];
  /** Absent for the batch operators, which the calling statement expands (see operators.ts). */
  impl?: FunctionImpl;
  /**
   * Operators take their argument verbatim (JSON, XML or SQL containing commas and quotes): `quotes`
   * names the quote characters inside which parentheses do not count.
   */
  raw?: { quotes: string };
  /**
   * The index of an argument that is a .NET composite format string (#format): in it `{{` is the
   * .NET brace escape unless a field name follows it directly (`{{name}}`), so `{{0}}` and
   * `{{{0}}}` mean what .NET makes of them (docs/functions.md).
   */
  compositeFormat?: number;
}

/** Thrown by implementations; the evaluator turns it into a ScriptError naming the function and position. */
export class FunctionError extends Error {}
