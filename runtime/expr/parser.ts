import type { AggregateName, BinaryOp, ExprNode, FunctionName } from './ast';
import { exprError, type ErrorContext } from './errors';
import { tokenize, type Token } from './lexer';
import { numberLiteral } from './literals';
import { NESTED_TOO_DEEPLY, NESTING_LIMIT } from '../script/limits';

/**
 * Recursive-descent parser of the DataColumn.Expression grammar. Precedence, loosest first (as in
 * .NET's ExpressionParser): OR, AND, NOT, comparisons (= <> < > <= >= IN LIKE IS), + -, * / %,
 * unary - +. Date literals stay text here; they are converted when the expression is bound.
 * Operators of one level are read with a loop into a left-deep tree (binding walks it with a loop
 * too); what recurses — parentheses, calls, IN lists, NOT and signs — counts against NESTING_LIMIT.
 */

const RESERVED = new Set([
  'and',
  'between',
  'child',
  'false',
  'in',
  'is',
  'like',
  'not',
  'null',
  'or',
  'parent',
  'true',
]);
const FUNCTIONS = new Set<FunctionName>(['CONVERT', 'LEN', 'ISNULL', 'IIF', 'TRIM', 'SUBSTRING']);
const AGGREGATES = new Set<AggregateName>(['SUM', 'AVG', 'MIN', 'MAX', 'COUNT', 'STDEV', 'VAR']);
const ARITY: Record<FunctionName, [number, number]> = {
  CONVERT: [2, 2],
  LEN: [1, 1],
  ISNULL: [2, 2],
  IIF: [3, 3],
  TRIM: [1, 1],
  SUBSTRING: [3, 3],
};
const COMPARISONS = new Set(['=', '<>', '<', '>', '<=', '>=']);

export function parseExpression(context: ErrorContext): ExprNode {
  if (!context.source.trim()) throw exprError('the expression is empty', 0, context);
  return new Parser(tokenize(context.source, context), context).parse();
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly context: ErrorContext,
  ) {}

  parse(): ExprNode {
    const node = this.or();
    const t = this.peek();
    if (t.type !== 'eof') throw this.error(`unexpected ${describe(t)}`, t);
    return node;
  }

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)];
  }

  private next(): Token {
    return this.tokens[this.i++];
  }

  private isWord(t: Token, word: string): boolean {
    return t.type === 'name' && t.value.toLowerCase() === word;
  }

  private acceptWord(word: string): Token | undefined {
    return this.isWord(this.peek(), word) ? this.next() : undefined;
  }

  private expect(type: Token['type'], what: string): Token {
    const t = this.peek();
    if (t.type !== type) throw this.error(`expected ${what} but found ${describe(t)}`, t);
    return this.next();
  }

  private error(reason: string, t: Token) {
    return exprError(reason, t.offset, this.context);
  }

  /** Parses what `opener` (a '(', a call, NOT, a sign) encloses, one nesting level deeper. */
  private nested<T>(opener: Token, parse: () => T): T {
    if (this.depth >= NESTING_LIMIT) throw this.error(NESTED_TOO_DEEPLY, opener);
    this.depth++;
    const result = parse();
    this.depth--;
    return result;
  }

  private or(): ExprNode {
    let left = this.and();
    for (let t = this.acceptWord('or'); t; t = this.acceptWord('or')) {
      left = { type: 'binary', op: 'OR', left, right: this.and(), offset: t.offset };
    }
    return left;
  }

  private and(): ExprNode {
    let left = this.not();
    for (let t = this.acceptWord('and'); t; t = this.acceptWord('and')) {
      left = { type: 'binary', op: 'AND', left, right: this.not(), offset: t.offset };
    }
    return left;
  }

  private not(): ExprNode {
    const t = this.acceptWord('not');
    if (t) return { type: 'unary', op: 'NOT', operand: this.nested(t, () => this.not()), offset: t.offset };
    return this.comparison();
  }

  private comparison(): ExprNode {
    let left = this.additive();
    for (;;) {
      const t = this.peek();
      if (t.type === 'op' && COMPARISONS.has(t.value)) {
        this.next();
        left = { type: 'binary', op: t.value as BinaryOp, left, right: this.additive(), offset: t.offset };
        continue;
      }
      if (this.isWord(t, 'is')) {
        this.next();
        const negated = this.acceptWord('not') !== undefined;
        const nul = this.peek();
        if (!this.isWord(nul, 'null')) throw this.error(`expected NULL after IS${negated ? ' NOT' : ''}`, nul);
        this.next();
        left = { type: 'isNull', negated, operand: left, offset: t.offset };
        continue;
      }
      const negated = this.isWord(t, 'not') && (this.isWord(this.peek(1), 'in') || this.isWord(this.peek(1), 'like'));
      const op = negated ? this.peek(1) : t;
      if (this.isWord(op, 'in')) {
        this.i += negated ? 2 : 1;
        left = { type: 'in', negated, operand: left, items: this.nested(t, () => this.inList()), offset: t.offset };
        continue;
      }
      if (this.isWord(op, 'like')) {
        this.i += negated ? 2 : 1;
        left = { type: 'like', negated, operand: left, pattern: this.additive(), offset: t.offset };
        continue;
      }
      if (this.isWord(t, 'between')) throw this.error('BETWEEN is not supported; write a >= x AND a <= y', t);
      return left;
    }
  }

  private inList(): ExprNode[] {
    const open = this.peek();
    if (open.type !== '(') throw this.error('IN needs a parenthesised list of values', open);
    this.next();
    const items = [this.or()];
    while (this.peek().type === ',') {
      this.next();
      items.push(this.or());
    }
    this.expect(')', "',' or ')' in the IN list");
    return items;
  }

  private additive(): ExprNode {
    let left = this.multiplicative();
    for (let t = this.peek(); t.type === 'op' && (t.value === '+' || t.value === '-'); t = this.peek()) {
      this.next();
      left = { type: 'binary', op: t.value as BinaryOp, left, right: this.multiplicative(), offset: t.offset };
    }
    return left;
  }

  private multiplicative(): ExprNode {
    let left = this.unary();
    for (
      let t = this.peek();
      t.type === 'op' && (t.value === '*' || t.value === '/' || t.value === '%');
      t = this.peek()
    ) {
      this.next();
      left = { type: 'binary', op: t.value as BinaryOp, left, right: this.unary(), offset: t.offset };
    }
    return left;
  }

  private unary(): ExprNode {
    const t = this.peek();
    if (t.type === 'op' && (t.value === '-' || t.value === '+')) {
      this.next();
      return { type: 'unary', op: t.value, operand: this.nested(t, () => this.unary()), offset: t.offset };
    }
    return this.primary();
  }

  private primary(): ExprNode {
    const t = this.next();
    switch (t.type) {
      case 'number': {
        const { value, kind } = numberLiteral(t.value);
        return { type: 'literal', value, kind, offset: t.offset };
      }
      case 'string':
        return { type: 'literal', value: t.value, kind: 'string', offset: t.offset };
      case 'date':
        return { type: 'literal', value: t.value, kind: 'datetime', offset: t.offset };
      case 'column':
        return { type: 'column', name: t.value, offset: t.offset };
      case '(':
        return this.nested(t, () => {
          const inner = this.or();
          this.expect(')', "')'");
          return inner;
        });
      case 'name':
        return this.word(t);
      default:
        throw this.error(`expected a value, a column or '(' but found ${describe(t)}`, t);
    }
  }

  private word(t: Token): ExprNode {
    const lower = t.value.toLowerCase();
    if (lower === 'true' || lower === 'false')
      return { type: 'literal', value: lower === 'true', kind: 'bool', offset: t.offset };
    if (lower === 'null') return { type: 'literal', value: null, kind: 'null', offset: t.offset };
    if (this.peek().type === '(') return this.nested(t, () => this.call(t));
    if (RESERVED.has(lower)) {
      throw this.error(`'${t.value}' is a reserved word; write [${t.value}] for a column of that name`, t);
    }
    return { type: 'column', name: t.value, offset: t.offset };
  }

  private call(t: Token): ExprNode {
    const upper = t.value.toUpperCase();
    this.next(); // (
    if (AGGREGATES.has(upper as AggregateName)) {
      const col = this.next();
      if (col.type !== 'name' && col.type !== 'column') {
        throw this.error(`${upper} takes one column name, e.g. ${upper}(Total)`, col);
      }
      if (this.peek().type === ',') throw this.error(`${upper} takes one column name`, this.peek());
      this.expect(')', `')' after the column of ${upper}`);
      return { type: 'aggregate', name: upper as AggregateName, column: col.value, offset: t.offset };
    }
    if (!FUNCTIONS.has(upper as FunctionName)) {
      const known = [...FUNCTIONS, ...AGGREGATES].join(', ');
      throw this.error(`unknown function '${t.value}' (functions: ${known})`, t);
    }
    const name = upper as FunctionName;
    const args: ExprNode[] = [];
    if (this.peek().type !== ')') {
      args.push(this.or());
      while (this.peek().type === ',') {
        this.next();
        args.push(this.or());
      }
    }
    this.expect(')', `',' or ')' in the arguments of ${name}`);
    const [min, max] = ARITY[name];
    if (args.length < min || args.length > max) {
      throw this.error(`${name} takes ${min} argument${min === 1 ? '' : 's'}, got ${args.length}`, t);
    }
    return { type: 'call', name, args, offset: t.offset };
  }
}

function describe(t: Token): string {
  switch (t.type) {
    case 'eof':
      return 'the end of the expression';
    case 'string':
      return `'${t.value}'`;
    case 'column':
      return `[${t.value}]`;
    default:
      return `'${t.value}'`;
  }
}
