import { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import { ScriptError, type Position } from '../errors';
import { compilePart, type CompiledPart } from '../functions/evaluate';
import { parseTemplate, type Part } from '../functions/parse';
import type { Scope } from '../scope';
import type { Text } from '../script/ast';
import type { Dialect } from './engine';

/**
 * The SQL of SELECT FROM DB and EXEC ON DB, compiled once per statement (docs/databases.md, "Bind
 * parameters"). Each `{{field}}`, `#f()` and `@f()` in it becomes a bind parameter whose value is
 * computed by the template evaluator: values never become SQL text, so `x'); DROP TABLE t; --` is
 * stored as the text it is. One inside a quoted SQL literal would have to be spliced, and is an error
 * that says to write it bare. `@pipelinedata()` is where the table holding the pipeline's rows goes.
 */

/**
 * A piece of the SQL: text as written, the bind parameter `index`, or the place of @pipelinedata();
 * `from` is where it starts in the script's SQL (an engine's error position is mapped back by it).
 */
export type Segment = { from: number } & (
  { kind: 'sql'; text: string } | { kind: 'param'; index: number } | { kind: 'pipelinedata' }
);

/** A `{{field}}` or call of the SQL, sent as a bind parameter. */
export interface SqlParam {
  value: CompiledPart;
  /** As written, for messages: `{{name}}`, `#now(…)`. */
  text: string;
  pos?: Position;
}

export interface SqlPlan {
  /** The SQL as the script wrote it: an error the engine raises running it is placed there (atSql). */
  text: Text;
  /** The text as a whole, statements and their separators. */
  whole: Segment[];
  /** The statements, split at `;` outside quotes and comments (run one by one when they have parameters). */
  statements: Segment[][];
  params: SqlParam[];
  usesPipelineData: boolean;
}

/** SQL text rendered for one dialect, and which parameters it binds, in order. */
export interface RenderedSql {
  sql: string;
  params: number[];
  /** Where character `index` of `sql` was written in the script's SQL (a placeholder: where its field or call starts). */
  sourceAt(index: number): number;
}

type State = 'code' | 'quote' | 'identifier' | 'line comment' | 'block comment' | 'dollar';

const PIPELINE_DATA = /@pipelinedata\s*\(\s*\)/iy;
const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;

/** The match of a sticky regex at `at`, or undefined. */
function matchAt(re: RegExp, s: string, at: number): string | undefined {
  re.lastIndex = at;
  return re.exec(s)?.[0];
}

function planSql(text: Text): SqlPlan {
  const plan: SqlPlan = { text, whole: [], statements: [], params: [], usesPipelineData: false };
  let statement: Segment[] = [];
  let state: State = 'code';
  let dollarTag = '';
  let pending = '';
  /** Where `pending` starts in the text, and where the part being read starts. */
  let pendingFrom = 0;
  let partFrom = 0;
  /** The statement has more than blanks and comments. */
  let hasCode = false;
  const flushPending = () => {
    if (!pending) return;
    const segment: Segment = { kind: 'sql', text: pending, from: pendingFrom };
    plan.whole.push(segment);
    statement.push(segment);
    pending = '';
  };
  const push = (segment: Segment) => {
    flushPending();
    plan.whole.push(segment);
    statement.push(segment);
    hasCode = true;
  };
  const endStatement = () => {
    flushPending();
    if (hasCode) plan.statements.push(statement);
    statement = [];
    hasCode = false;
  };

  for (const part of parseTemplate(text.value, text.pos)) {
    if (part.kind !== 'text') {
      const from = partFrom;
      partFrom += part.length ?? 0;
      // Left out of the SQL sent: what follows is a segment of its own, so positions stay right.
      if (state === 'line comment' || state === 'block comment') {
        flushPending();
        continue;
      }
      if (state !== 'code') throw misplaced(part, state);
      plan.params.push({ value: compilePart(part, { sql: true }), text: written(part), pos: part.pos });
      push({ kind: 'param', index: plan.params.length - 1, from });
      continue;
    }
    const s = part.text;
    const from = partFrom;
    partFrom += s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (!pending) pendingFrom = from + i;
      switch (state) {
        case 'code':
          if (c === ';') {
            endStatement();
            plan.whole.push({ kind: 'sql', text: ';', from: from + i });
            continue;
          }
          if (c === '@') {
            const m = matchAt(PIPELINE_DATA, s, i);
            if (m) {
              plan.usesPipelineData = true;
              push({ kind: 'pipelinedata', from: from + i });
              i += m.length - 1;
              continue;
            }
          }
          if (c === "'") state = 'quote';
          else if (c === '"') state = 'identifier';
          else if (c === '-' && s[i + 1] === '-') state = 'line comment';
          else if (c === '/' && s[i + 1] === '*') {
            state = 'block comment';
            pending += '/*';
            i++;
            continue;
          } else if (c === '$') {
            const m = matchAt(DOLLAR_TAG, s, i);
            if (m) {
              state = 'dollar';
              dollarTag = m;
              pending += dollarTag;
              i += dollarTag.length - 1;
              continue;
            }
          }
          break;
        case 'quote':
          // A doubled quote leaves the literal and enters it again: the state comes out right.
          if (c === "'") state = 'code';
          break;
        case 'identifier':
          if (c === '"') state = 'code';
          break;
        case 'line comment':
          if (c === '\n') state = 'code';
          break;
        case 'block comment':
          if (c === '*' && s[i + 1] === '/') {
            state = 'code';
            pending += '*/';
            i++;
            continue;
          }
          break;
        case 'dollar':
          if (c === '$' && s.startsWith(dollarTag, i)) {
            state = 'code';
            pending += dollarTag;
            i += dollarTag.length - 1;
            continue;
          }
          break;
      }
      if (state !== 'line comment' && state !== 'block comment' && c !== ' ' && c !== '\n' && c !== '\t' && c !== '\r')
        hasCode = true;
      pending += c;
    }
  }
  endStatement();
  return plan;
}

const plans = new WeakMap<Text, SqlPlan>();

/** The plan of a statement's SQL, compiled the first time it runs (an inline pipeline runs it per page). */
export function planFor(text: Text): SqlPlan {
  let plan = plans.get(text);
  if (!plan) {
    plan = planSql(text);
    plans.set(text, plan);
  }
  return plan;
}

/**
 * The values of `params`, computed once: `#f()` and `@f()` run once, and a `{{field}}` is an error
 * (`why` says what to write instead), as there is no row to read.
 */
export function valuesOnce(plan: SqlPlan, params: readonly number[], scope: Scope, why: string): Value[] {
  requireNoRow(plan, why);
  return params.map((i) => plan.params[i].value.bind(scope, NO_ROWS)([], 0));
}

const NO_ROWS = Dataset.empty();

/** SQL run outside any row has no `{{field}}` to read: one is an error, `why` saying what to write instead. */
export function requireNoRow(plan: SqlPlan, why: string): void {
  const reading = plan.params.find((p) => p.value.fields.length > 0);
  if (reading) throw new ScriptError(`${reading.text} reads a row, but ${why}`, 'runtime', reading.pos);
}

/** The SQL of `segments` for `dialect`, the pipeline data's table at @pipelinedata(). */
export function renderSql(segments: readonly Segment[], dialect: Dialect, pipelineTable?: string): RenderedSql {
  let sql = '';
  const params: number[] = [];
  /** Where each segment starts in `sql`, in order. */
  const starts: number[] = [];
  for (const s of segments) {
    starts.push(sql.length);
    if (s.kind === 'sql') sql += s.text;
    else if (s.kind === 'pipelinedata') sql += pipelineTable ?? '';
    else {
      params.push(s.index);
      sql += dialect.placeholder(params.length);
    }
  }
  const sourceAt = (index: number): number => {
    let k = starts.length - 1;
    while (k > 0 && starts[k] > index) k--;
    const segment = segments[k];
    if (!segment) return 0;
    return segment.kind === 'sql' ? segment.from + Math.min(index - starts[k], segment.text.length) : segment.from;
  };
  return { sql, params, sourceAt };
}

function written(part: Exclude<Part, { kind: 'text' }>): string {
  if (part.kind === 'call') return `${part.sigil}${part.name}(…)`;
  if (part.kind === 'variable' && part.bare) return `@${part.name}`;
  return `{{${part.prefix ? `${part.prefix}:` : ''}${part.kind === 'variable' ? '@' : ''}${part.name}}}`;
}

function misplaced(part: Exclude<Part, { kind: 'text' }>, state: State): ScriptError {
  const what = written(part);
  const message =
    state === 'quote'
      ? `${what} is inside a quoted SQL literal: values are sent as bind parameters, never spliced into the SQL text, ` +
        `so write it bare (… = ${what}, not '${what}')`
      : `${what} is inside a quoted SQL ${state === 'identifier' ? 'identifier' : 'string'}: values are sent as bind parameters, ` +
        'which can only stand where a value can, never inside quotes';
  return new ScriptError(message, 'semantic', part.pos);
}
