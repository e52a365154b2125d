import type { BaseType, Value } from '../dataset/types';

/** Binary operators of the expression language, in their canonical spelling. */
export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '=' | '<>' | '<' | '>' | '<=' | '>=' | 'AND' | 'OR';

export type AggregateName = 'SUM' | 'AVG' | 'MIN' | 'MAX' | 'COUNT' | 'STDEV' | 'VAR';

/** Scalar functions of B.1 (names upper-cased). */
export type FunctionName = 'CONVERT' | 'LEN' | 'ISNULL' | 'IIF' | 'TRIM' | 'SUBSTRING';

/** A parsed expression; `offset` is where the node starts in the expression text (for errors). */
export type ExprNode =
  | { type: 'literal'; value: Value; kind: BaseType | 'null'; offset: number }
  | { type: 'column'; name: string; offset: number }
  | { type: 'unary'; op: '-' | '+' | 'NOT'; operand: ExprNode; offset: number }
  | { type: 'binary'; op: BinaryOp; left: ExprNode; right: ExprNode; offset: number }
  | { type: 'like'; negated: boolean; operand: ExprNode; pattern: ExprNode; offset: number }
  | { type: 'in'; negated: boolean; operand: ExprNode; items: ExprNode[]; offset: number }
  | { type: 'isNull'; negated: boolean; operand: ExprNode; offset: number }
  | { type: 'call'; name: FunctionName; args: ExprNode[]; offset: number }
  | { type: 'aggregate'; name: AggregateName; column: string; offset: number };
