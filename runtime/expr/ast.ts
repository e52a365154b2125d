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

/**
 * Every node of the tree, parent before children, left to right. Iterative: a chain of thousands of
 * ORs is a left-deep tree that deep.
 */
export function* nodesOf(root: ExprNode): Generator<ExprNode> {
  const stack: ExprNode[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    yield node;
    switch (node.type) {
      case 'unary':
      case 'isNull':
        stack.push(node.operand);
        break;
      case 'binary':
        stack.push(node.right, node.left);
        break;
      case 'like':
        stack.push(node.pattern, node.operand);
        break;
      case 'in':
        // A loop, not push(...items): an IN list may hold more values than a call takes arguments.
        for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
        stack.push(node.operand);
        break;
      case 'call':
        for (let i = node.args.length - 1; i >= 0; i--) stack.push(node.args[i]);
        break;
    }
  }
}
