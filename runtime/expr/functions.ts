import { converterTo } from '../dataset/convert';
import { parseTypeName } from '../dataset/type-names';
import type { ColumnType, Value } from '../dataset/types';
import type { ExprNode } from './ast';
import { folded, guarded, located, mismatch, type BindEnv, type Bound, type RowFn } from './bound';
import { isText, kindOf, type StaticType } from './kinds';
import { coercion } from './operations';

/**
 * The scalar functions of B.1. Null in gives null out (ISNULL and IIF excepted), as in .NET.
 * CONVERT uses the dataset's converters, so it reads and writes values exactly as column types do.
 */
export function bindCall(node: Extract<ExprNode, { type: 'call' }>, args: Bound[], env: BindEnv): Bound {
  let bound: Bound;
  switch (node.name) {
    case 'CONVERT':
      bound = bindConvert(node, args, env);
      break;
    case 'LEN': {
      const text = textOf(args[0]);
      bound = { type: 'int', fn: (row) => nullable(text(row), (s) => s.length), constant: false };
      break;
    }
    case 'TRIM': {
      const text = textOf(args[0]);
      bound = { type: 'string', fn: (row) => nullable(text(row), (s) => s.trim()), constant: false };
      break;
    }
    case 'SUBSTRING':
      bound = bindSubstring(node, args, env);
      break;
    case 'ISNULL': {
      const [a, b] = args.map((x) => x.fn);
      bound = { type: unify(args[0].type, args[1].type), fn: (row) => a(row) ?? b(row), constant: false };
      break;
    }
    case 'IIF': {
      const cond = args[0];
      if (cond.type !== 'bool' && cond.type !== 'any' && cond.type !== 'null') {
        throw mismatch(`IIF needs a boolean condition, not ${cond.type}`, node.args[0].offset, env);
      }
      const [c, a, b] = args.map((x) => x.fn);
      // A null condition takes the false branch, as a filter drops a row whose condition is null.
      const fn: RowFn =
        cond.type === 'bool'
          ? (row) => (c(row) === true ? a(row) : b(row))
          : guarded(
              (row) => {
                const v = c(row);
                if (v !== null && typeof v !== 'boolean')
                  throw mismatch(`IIF needs a boolean condition, not ${kindOf(v)}`, node.args[0].offset, env);
                return v === true ? a(row) : b(row);
              },
              node.offset,
              env,
            );
      bound = { type: unify(args[1].type, args[2].type), fn, constant: false };
      break;
    }
  }
  return folded(bound, args, node.offset, env);
}

function nullable<T>(v: T | null, f: (v: T) => Value): Value {
  return v === null ? null : f(v);
}

/** The type of a value that comes from one of two branches. */
function unify(a: StaticType, b: StaticType): StaticType {
  if (a === b) return a;
  if (a === 'null') return b;
  if (b === 'null') return a;
  return 'any';
}

/** The argument as text (.NET's string functions read any value through its invariant text). */
function textOf(arg: Bound): (row: Value[]) => string | null {
  const f = arg.fn;
  if (arg.type !== 'any' && arg.type !== 'null' && isText(arg.type)) return f as (row: Value[]) => string | null;
  const convert =
    arg.type === 'any' || arg.type === 'null' ? converterTo({ base: 'string' }) : coercion(arg.type, 'string');
  if (!convert) return f as (row: Value[]) => string | null;
  return (row) => convert(f(row)) as string | null;
}

function bindConvert(node: Extract<ExprNode, { type: 'call' }>, args: Bound[], env: BindEnv): Bound {
  const [value, typeArg] = args;
  const typeNode = node.args[1];
  if (!typeArg.constant || typeof typeArg.value !== 'string') {
    throw mismatch(
      "CONVERT needs a type name in quotes as its second argument, e.g. CONVERT(total, 'System.Int32')",
      typeNode.offset,
      env,
    );
  }
  let type: ColumnType;
  try {
    type = parseTypeName(typeArg.value);
  } catch (e) {
    throw located(e, typeNode.offset, env);
  }
  const source = value.type === 'any' || value.type === 'null' ? undefined : { base: value.type };
  const convert = converterTo(type, source);
  const f = value.fn;
  return { type: type.base, fn: guarded((row) => convert(f(row)), node.offset, env), constant: false };
}

/** SUBSTRING(s, start, length), 1-based; a start past the end or a length past it is clamped (.NET). */
function bindSubstring(node: Extract<ExprNode, { type: 'call' }>, args: Bound[], env: BindEnv): Bound {
  const text = textOf(args[0]);
  const toInt = converterTo({ base: 'int' });
  const [, startArg, lengthArg] = args.map((a) => a.fn);
  const fn = guarded(
    (row) => {
      const s = text(row);
      const startValue = startArg(row);
      const lengthValue = lengthArg(row);
      if (s === null || startValue === null || lengthValue === null) return null;
      const start = (toInt(startValue) as number) - 1;
      let length = toInt(lengthValue) as number;
      if (start < 0) throw mismatch(`SUBSTRING start must be 1 or more, got ${start + 1}`, node.args[1].offset, env);
      if (length < 0) throw mismatch(`SUBSTRING length must be 0 or more, got ${length}`, node.args[2].offset, env);
      const from = Math.min(start, s.length);
      length = Math.min(length, s.length - from);
      return s.substr(from, length);
    },
    node.offset,
    env,
  );
  return { type: 'string', fn, constant: false };
}
