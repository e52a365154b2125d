import type { ILookaheadStrategy, IOrAlt, IParserErrorMessageProvider, IToken, TokenType } from 'chevrotain';
import { EmbeddedActionsParser, LLkLookaheadStrategy } from './chevrotain';
import { ScriptError, withWritten, type Position } from '../errors';
import type {
  AddColumn,
  ApplyFilter,
  ApplyHttp,
  ApplyPipeline,
  ApplySchema,
  ApplyTx,
  Capture,
  ConnectionRef,
  ExecOnDb,
  Exit,
  FilterMode,
  HttpCommand,
  HttpSection,
  Load,
  Merge,
  Print,
  PushDb,
  PushDrive,
  PushHttp,
  RetryPolicy,
  SelectDb,
  SelectDrive,
  SelectHttp,
  SinkDb,
  SinkDrive,
  Statement,
  Text,
  TraceSpec,
  TxSpec,
  ZipColumn,
} from './ast';
import { columnSpec, httpCommand, retryPair, schemaColumns, typeAndName, type Fail } from './inner';
import * as O from './options';
import type { Body, DbSection, OptionDef, OptionSet, SetContext, ValueKind, Word } from './options';
import { SourceText, unquote } from './source';
import { ALL_TOKENS, Block, Bracket, endOf, FieldRef, Func, Identifier, KW, NumberLit, StringLit } from './tokens';

/** Readable names of what was expected; the parser adds "after X but found Y". */
function label(t: TokenType): string {
  return t.LABEL ?? t.name;
}

const messages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected }) => `expected ${label(expected)}`,
  buildNotAllInputParsedMessage: () => 'unexpected text',
  buildNoViableAltMessage: ({ expectedPathsPerAlt, customUserDescription }) =>
    `expected ${customUserDescription ?? O.list([...new Set(expectedPathsPerAlt.flatMap((alt) => alt.map((path) => label(path[0]))))])}`,
  buildEarlyExitMessage: ({ expectedIterationPaths, customUserDescription }) =>
    `expected ${customUserDescription ?? O.list([...new Set(expectedIterationPaths.map((path) => label(path[0])))])}`,
};

const MAX_LOOKAHEAD = 3;

/**
 * chevrotain's LL(k) lookahead, each alternation's and optional part's function computed when the parser
 * first reaches it rather than all of them as the grammar is built (~40 ms of CPU at every start of the
 * interpreter): a script reaches a few of the grammar's hundreds. The functions are the same; the
 * grammar's checks (`validate`) are the LL(k) strategy's own.
 */
function lookaheadOnFirstUse(maxLookahead: number): ILookaheadStrategy {
  const llk = new LLkLookaheadStrategy({ maxLookahead });
  return {
    validate: (options) => llk.validate(options),
    buildLookaheadForAlternation(options) {
      let la: ((orAlts?: IOrAlt<unknown>[]) => number | undefined) | undefined;
      return function (this: unknown, orAlts) {
        la ??= llk.buildLookaheadForAlternation(options);
        return la.call(this, orAlts);
      };
    },
    buildLookaheadForOptional(options) {
      let la: (() => boolean) | undefined;
      return function (this: unknown) {
        la ??= llk.buildLookaheadForOptional(options);
        return la.call(this);
      };
    },
  };
}

/**
 * Occurrence indices for the DSL calls of one rule invocation. The option bags generate their
 * alternatives from tables, so they number CONSUME/SUBRULE calls explicitly; the sequence is the same on
 * every invocation, which is what chevrotain needs. Hand-written calls use indices below FIRST.
 */
class Occurrences {
  private static readonly FIRST = 10;
  private n = Occurrences.FIRST;
  next(): number {
    return this.n++;
  }
}

export const FILTER_MODES: readonly FilterMode[] = ['SQL', 'REGEX', 'XPATH', 'TX'];

/** LOAD's stream words; INSERTS reads the upsert stream like UPSERTS (singular forms tolerated). */
const LOAD_STREAMS: [TokenType, 'upserts' | 'updates' | 'deletes'][] = [
  [KW.UPSERTS, 'upserts'],
  [KW.UPSERT, 'upserts'],
  [KW.INSERTS, 'upserts'],
  [KW.INSERT, 'upserts'],
  [KW.UPDATES, 'updates'],
  [KW.UPDATE, 'updates'],
  [KW.DELETES, 'deletes'],
  [KW.DELETE, 'deletes'],
];

/** What the rule of a statement returns: its fields but the common ones the parser adds. */
export type StatementBody = Body<Statement>;

/**
 * The statement grammar. The parser module identifies the command from its leading keywords and
 * invokes the rule of its body with the remaining tokens (see `commands.ts`), so each rule starts after
 * e.g. `SELECT * FROM HTTP`. One instance serves every parse (chevrotain analyses the grammar once).
 */
export class Grammar extends EmbeddedActionsParser {
  private source = new SourceText('');
  private keyword = '';
  /** Where the statement ends: a required part it lacks was expected there. */
  private end: Position = { line: 1, column: 1, offset: 0 };
  /**
   * The option sets' checks across options (a required FORMAT or TABLE), run once the whole
   * statement has parsed: a word the statement cannot take is reported where it is (`SINK INTO
   * DRIVE CSV …`: FORMAT is missing before CSV), not as a missing option at the statement's end.
   */
  private finishers: (() => void)[] = [];

  /**
   * chevrotain's checks of the grammar itself (ambiguities, left recursion) cost ~40 ms at every
   * start of the CLI, the REPL and the kernel and can only fail on a change to this file: the tests
   * build the grammar with them (test/script/grammar.test.ts), the interpreter without.
   */
  constructor(options: { validate?: boolean } = {}) {
    super(ALL_TOKENS, {
      maxLookahead: MAX_LOOKAHEAD,
      lookaheadStrategy: lookaheadOnFirstUse(MAX_LOOKAHEAD),
      skipValidations: !options.validate,
      errorMessageProvider: messages,
    });
    this.performSelfAnalysis();
  }

  /** Parses one statement body; returns undefined with `errors` set when it does not parse. */
  parseBody(
    rule: BodyRule,
    tokens: IToken[],
    source: SourceText,
    keyword: string,
    end: Position,
  ): StatementBody | undefined {
    this.source = source;
    this.keyword = keyword;
    this.end = end;
    this.input = tokens;
    this.finishers = [];
    const body = this[rule]();
    if (this.errors.length === 0) for (const finish of this.finishers) finish();
    return body;
  }

  // ---------------------------------------------------------------- helpers (run only inside ACTION)

  private pos(offset: number): Position {
    return this.source.position(offset);
  }

  private fail: Fail = (message, offset) => {
    throw new ScriptError(message, 'semantic', this.pos(offset), this.keyword);
  };

  private textOf(t: IToken): Text {
    if (t.tokenType === StringLit)
      return {
        value: unquote(t.image),
        form: 'quoted',
        pos: withWritten(this.pos(t.startOffset + 1), t.image.slice(1, -1)),
      };
    if (t.tokenType === Block) return { value: t.image.slice(1, -1), form: 'block', pos: this.pos(t.startOffset + 1) };
    return { value: t.image, form: 'bare', pos: this.pos(t.startOffset) };
  }

  /** Position of the last consumed token (the keyword that introduced a sub-rule). */
  private previousPos(): Position {
    return this.pos(this.LA(0).startOffset);
  }

  /** End of the last consumed token, not counting the noise word WITH a bag may have read last. */
  private endOfClause(): number {
    const tokens = this.input;
    let i = tokens.indexOf(this.LA(0));
    while (i > 0 && tokens[i].tokenType === KW.WITH) i--;
    return endOf(tokens[i]);
  }

  private context(name: string, at: Position): SetContext {
    return {
      at,
      name,
      fail: (message, pos) => {
        throw new ScriptError(message, 'semantic', pos ?? at, this.keyword);
      },
    };
  }

  private numberValue(def: OptionDef<unknown>, t: IToken): number {
    const n = Number(t.image);
    if (def.value === 'int' && !(Number.isInteger(n) && n >= 0)) {
      this.fail(`${def.name} expects a whole number (0 or more) but found '${t.image}'`, t.startOffset);
    }
    if (def.value === 'count' && !(Number.isInteger(n) && n >= 1)) {
      this.fail(`${def.name} expects a whole number of 1 or more but found '${t.image}'`, t.startOffset);
    }
    if (n < 0) this.fail(`${def.name} expects a number of seconds (0 or more) but found '${t.image}'`, t.startOffset);
    return n;
  }

  /**
   * Options in any order, each at most once, with WITH accepted anywhere as a noise word
   * (reference.md: options with or without a leading WITH).
   */
  private bag<N>(occ: Occurrences, set: OptionSet<N>, node: N, finishAt: () => Position): void {
    const seen = new Set<string>();
    const alts: IOrAlt<void>[] = [];
    for (const def of set.options) {
      for (const spelling of def.spellings) {
        const keywordIdx = spelling.map(() => occ.next());
        const valueIdx = occ.next();
        alts.push({
          ALT: () => {
            const first = this.consume(keywordIdx[0], spelling[0]);
            for (let i = 1; i < spelling.length; i++) this.consume(keywordIdx[i], spelling[i]);
            const value = this.value(def.value, valueIdx);
            this.ACTION(() => {
              const ctx = this.context(def.name, this.pos(first.startOffset));
              if (seen.has(def.name)) ctx.fail(`${def.name} is given twice`);
              seen.add(def.name);
              const v =
                def.value === 'int' || def.value === 'count' || def.value === 'seconds'
                  ? this.numberValue(def, value as IToken)
                  : value;
              if (def.value === 'pipeline') {
                Object.assign(v as object, {
                  keyword: 'APPLY PIPELINE',
                  pos: ctx.at,
                  source: this.source.text.slice(first.startOffset, this.endOfClause()),
                });
              }
              def.set(node, v as never, ctx);
            });
          },
        });
      }
    }
    if (alts.length) {
      const withIdx = occ.next();
      alts.push({ ALT: () => void this.consume(withIdx, KW.WITH) });
      const orIdx = occ.next();
      this.many(occ.next(), () => void this.or(orIdx, alts));
    }
    if (set.finish)
      this.ACTION(() => {
        const ctx = this.context(this.keyword, finishAt());
        this.finishers.push(() => set.finish!(node, ctx));
      });
  }

  private value(kind: ValueKind, idx: number): unknown {
    switch (kind) {
      case 'flag':
        return true;
      case 'text':
        return this.subrule(idx, this.text);
      case 'int':
      case 'count':
      case 'seconds':
        return this.consume(idx, NumberLit);
      case 'word':
        return this.subrule(idx, this.word);
      case 'connText':
        return this.subrule(idx, this.connText);
      case 'tx':
        return this.subrule(idx, this.tx);
      case 'pipeline':
        return this.subrule(idx, this.pipeline);
      case 'trace':
        return this.subrule(idx, this.trace);
      case 'retry':
        return this.subrule(idx, this.retry);
      case 'httpSection':
        return this.subrule(idx, this.httpSection);
      case 'dbSection':
        return this.subrule(idx, this.dbSection);
    }
  }

  private stmtEnd = (): Position => this.end;

  // ---------------------------------------------------------------- shared rules

  private text = this.RULE('text', (): Text => {
    const t = this.OR({
      DEF: [
        { ALT: () => this.CONSUME(StringLit) },
        { ALT: () => this.CONSUME(Block) },
        { ALT: () => this.CONSUME(Func) },
        { ALT: () => this.CONSUME(FieldRef) },
      ],
      ERR_MSG: "a quoted string ('…')",
    });
    return this.ACTION(() => this.textOf(t));
  });

  private block = this.RULE('block', (): Text => {
    const t = this.CONSUME(Block);
    return this.ACTION(() => this.textOf(t));
  });

  private connection = this.RULE('connection', (): ConnectionRef => {
    const t = this.CONSUME(Bracket);
    return this.ACTION(() => {
      const name = t.image.slice(1, -1).trim();
      if (!name) this.fail('empty connection name []', t.startOffset);
      return { name, pos: this.pos(t.startOffset) };
    });
  });

  private word = this.RULE('word', (): Word => {
    const t = this.OR({
      DEF: [{ ALT: () => this.CONSUME(Identifier) }, { ALT: () => this.CONSUME(StringLit) }],
      ERR_MSG: 'a format name (CSV, JSON, XML…)',
    });
    return this.ACTION(() => ({
      name: (t.tokenType === StringLit ? unquote(t.image) : t.image).trim().toUpperCase(),
      pos: this.pos(t.startOffset + (t.tokenType === StringLit ? 1 : 0)),
    }));
  });

  private httpCommand = this.RULE('httpCommand', (): HttpCommand => {
    const t = this.CONSUME(Block);
    return this.ACTION(() => httpCommand(this.textOf(t), (o) => this.pos(o), this.fail));
  });

  private connText = this.RULE('connText', () => {
    const connection = this.OPTION(() => this.SUBRULE(this.connection));
    const folder = this.SUBRULE(this.text);
    return this.ACTION(() => (connection ? { connection, folder } : { folder }));
  });

  private tx = this.RULE('tx', (): TxSpec => {
    const path = this.SUBRULE(this.text);
    return this.ACTION(() => ({ pos: path.pos, path }));
  });

  private pipeline = this.RULE('pipeline', (): Body<ApplyPipeline> => {
    const body = this.SUBRULE(this.block);
    const node: Body<ApplyPipeline> = {
      kind: 'ApplyPipeline',
      statements: [],
      body,
      breakOnEmpty: false,
      bypass: false,
    };
    this.bag(new Occurrences(), O.APPLY_PIPELINE, node, this.stmtEnd);
    return node;
  });

  private trace = this.RULE('trace', (): TraceSpec => {
    const node = this.ACTION(() => ({
      pos: this.previousPos(),
      withPayload: false,
      addTrackingFields: false,
      truncate: false,
      truncateAppend: false,
    })) as TraceSpec;
    this.OPTION(() => this.CONSUME(KW.INTO));
    const connection = this.OPTION1(() => this.SUBRULE(this.connection));
    this.ACTION(() => {
      if (connection) node.connection = connection;
    });
    this.bag(new Occurrences(), O.TRACE_OPTIONS, node, () => this.pos(this.endOfClause()));
    return node;
  });

  private retry = this.RULE('retry', (): RetryPolicy => {
    const kind = this.OR({ DEF: [{ ALT: () => this.CONSUME(Identifier) }], ERR_MSG: 'LINEAR or EXPONENTIAL' });
    const pair = this.SUBRULE(this.block);
    return this.ACTION(() => {
      const k = kind.image.toUpperCase();
      if (k !== 'LINEAR' && k !== 'EXPONENTIAL')
        this.fail(`expected LINEAR or EXPONENTIAL after RETRY but found '${kind.image}'`, kind.startOffset);
      return { kind: k, ...retryPair(pair, this.fail), pos: this.pos(kind.startOffset) };
    });
  });

  private httpSection = this.RULE('httpSection', (): HttpSection => {
    const at = this.ACTION(() => this.previousPos());
    const command = this.SUBRULE(this.httpCommand);
    const node = { pos: at, command } as HttpSection;
    this.bag(new Occurrences(), O.HTTP_SECTION_OPTIONS, node, () => at);
    return node;
  });

  private dbSection = this.RULE('dbSection', (): DbSection => {
    const sql = this.SUBRULE(this.block);
    const node: DbSection = { sql };
    this.bag(new Occurrences(), O.DB_SECTION_OPTIONS, node, this.stmtEnd);
    return node;
  });

  // ---------------------------------------------------------------- statement bodies

  selectHttp = this.RULE('selectHttp', (): Body<SelectHttp> => {
    const connection = this.OPTION(() => this.SUBRULE(this.connection));
    const command = this.SUBRULE(this.httpCommand);
    const node = withConnection<Body<SelectHttp>>({ kind: 'SelectHttp', command, options: {} }, connection);
    this.bag(new Occurrences(), O.SELECT_HTTP, node, this.stmtEnd);
    return node;
  });

  selectDb = this.RULE('selectDb', (): Body<SelectDb> => {
    const connection = this.SUBRULE(this.connection);
    const node: Body<SelectDb> = { kind: 'SelectDb', connection, sql: this.SUBRULE(this.block) };
    this.bag(new Occurrences(), O.SELECT_DB, node, this.stmtEnd);
    return node;
  });

  selectDrive = this.RULE('selectDrive', (): Body<SelectDrive> => {
    const connection = this.OPTION(() => this.SUBRULE(this.connection));
    const path = this.SUBRULE(this.text);
    const node = withConnection<Body<SelectDrive>>({ kind: 'SelectDrive', path }, connection);
    this.bag(new Occurrences(), O.SELECT_DRIVE, node, this.stmtEnd);
    return node;
  });

  load = this.RULE('load', (): Body<Load> => {
    const node = { kind: 'Load', upserts: false, updates: false, deletes: false, checkSignature: false } as Body<Load>;
    this.MANY(() => {
      const t = this.OR(LOAD_STREAMS.map(([type]) => ({ ALT: () => this.CONSUME(type) })));
      this.ACTION(() => {
        node[LOAD_STREAMS.find(([type]) => type === t.tokenType)![1]] = true;
      });
    });
    this.CONSUME(KW.FROM);
    const connection = this.OPTION(() => this.SUBRULE(this.connection));
    node.name = this.SUBRULE(this.text);
    if (connection) node.connection = connection;
    this.bag(new Occurrences(), O.LOAD, node, this.stmtEnd);
    return node;
  });

  applyTx = this.RULE('applyTx', (): Body<ApplyTx> => {
    const node: Body<ApplyTx> = { kind: 'ApplyTx', tx: this.SUBRULE(this.tx) };
    this.bag(new Occurrences(), O.APPLY_TX, node, this.stmtEnd);
    return node;
  });

  applySchema = this.RULE('applySchema', (): Body<ApplySchema> => {
    const block = this.SUBRULE(this.block);
    const columns = this.ACTION(() => schemaColumns(block, (o) => this.pos(o), this.fail));
    const node: Body<ApplySchema> = {
      kind: 'ApplySchema',
      columns,
      continueOnError: false,
      strictColumns: false,
      fxByRow: false,
    };
    this.bag(new Occurrences(), O.APPLY_SCHEMA, node, this.stmtEnd);
    return node;
  });

  applyPipeline = this.RULE('applyPipeline', (): Body<ApplyPipeline> => this.SUBRULE(this.pipeline));

  applyHttp = this.RULE('applyHttp', (): Body<ApplyHttp> => {
    const connection = this.OPTION(() => this.SUBRULE(this.connection));
    const command = this.SUBRULE(this.httpCommand);
    const node = withConnection<Body<ApplyHttp>>({ kind: 'ApplyHttp', command, options: {} }, connection);
    this.bag(new Occurrences(), O.APPLY_HTTP, node, this.stmtEnd);
    this.ACTION(() => {
      // A call-once mode has no rows to choose: a WHEN there would be ignored, whatever it says.
      const { when, processing = 'continue' } = node.options;
      if (when && processing !== 'inner join' && processing !== 'left join')
        this.fail(
          `WHEN chooses the rows called for in the join modes ('inner join', 'left join'); PROCESSING '${processing}' calls once`,
          when.pos.offset,
        );
    });
    return node;
  });

  applyFilter = this.RULE('applyFilter', (): Body<ApplyFilter> => {
    const modeToken = this.OPTION(() =>
      this.OR({
        DEF: [{ ALT: () => this.CONSUME(Identifier) }, { ALT: () => this.CONSUME(KW.TX) }],
        ERR_MSG: 'SQL, REGEX, XPATH or TX',
      }),
    );
    const expression = this.SUBRULE(this.text);
    const mode = this.ACTION((): FilterMode => {
      if (!modeToken) return 'SQL';
      const m = modeToken.image.toUpperCase() as FilterMode;
      if (!FILTER_MODES.includes(m))
        this.fail(`unknown filter mode '${modeToken.image}': expected SQL, REGEX, XPATH or TX`, modeToken.startOffset);
      return m;
    });
    const node: Body<ApplyFilter> = {
      kind: 'ApplyFilter',
      mode,
      expression,
      keepEmpty: false,
      keepInvalid: false,
      caseInsensitive: false,
      singleLine: false,
    };
    this.bag(new Occurrences(), O.APPLY_FILTER, node, this.stmtEnd);
    return node;
  });

  addColumn = this.RULE('addColumn', (): Body<AddColumn> => {
    const head = this.OR({
      DEF: [{ ALT: () => this.CONSUME(StringLit) }, { ALT: () => this.CONSUME(Block) }],
      ERR_MSG: "'[type] name=default' or (name='default')",
    });
    const node = {
      kind: 'AddColumn',
      orAlter: false,
      ignoreIfExists: false,
      continueOnError: false,
    } as Body<AddColumn> & { expression?: Text };
    this.bag(new Occurrences(), O.ADD_COLUMN, node, this.stmtEnd);
    this.ACTION(() => {
      const raw = head.image.slice(1, -1);
      const offset = head.startOffset + 1;
      const at = (o: number) => this.pos(o);
      const { expression } = node;
      delete node.expression;
      if (expression) {
        if (head.tokenType !== StringLit) this.fail("WITH EXPRESSION needs the column as 'name'", head.startOffset);
        if (raw.includes('='))
          this.fail("give the default either in 'name=default' or in WITH EXPRESSION, not both", expression.pos.offset);
        Object.assign(node, {
          shape: 'expression',
          ...typeAndName(unquote(head.image), offset, this.fail),
          default: expression,
        });
      } else {
        const form = head.tokenType === StringLit ? 'quoted' : 'block';
        Object.assign(node, {
          shape: form === 'quoted' ? 'typed' : 'paren',
          ...columnSpec(raw, offset, form, at, this.fail),
        });
      }
      // The type is the first word of the head (typeAndName trims it).
      if (node.typeName !== undefined) node.typePos = at(offset + /^\s*/.exec(raw)![0].length);
    });
    return node;
  });

  zipColumn = this.RULE('zipColumn', (): Body<ZipColumn> => {
    // FORMAT is required; it is read as an option so it may come before or after BATCH.
    const node = { kind: 'ZipColumn', column: this.SUBRULE(this.text) } as Body<ZipColumn>;
    this.bag(new Occurrences(), O.ZIP_COLUMN, node, this.stmtEnd);
    return node;
  });

  execOnDb = this.RULE('execOnDb', (): Body<ExecOnDb> => {
    const connection = this.SUBRULE(this.connection);
    const node: Body<ExecOnDb> = { kind: 'ExecOnDb', connection, sql: this.SUBRULE(this.block), perRow: false };
    this.bag(new Occurrences(), O.EXEC_ON_DB, node, this.stmtEnd);
    return node;
  });

  capture = this.RULE('capture', (): Body<Capture> => {
    const name = this.OPTION(() => this.SUBRULE(this.text));
    const node: Body<Capture> = {
      kind: 'Capture',
      inserts: false,
      updates: false,
      deletes: false,
      initOnFirstRun: false,
      ignoreDups: false,
    };
    if (name) node.name = name;
    this.bag(new Occurrences(), O.CAPTURE, node, this.stmtEnd);
    return node;
  });

  pushHttp = this.RULE('pushHttp', (): Body<PushHttp> => {
    const connection = this.OPTION(() => this.SUBRULE(this.connection));
    const node = withConnection<Body<PushHttp>>({ kind: 'PushHttp', options: targetOptions() }, connection);
    this.bag(new Occurrences(), O.PUSH_HTTP, node, this.stmtEnd);
    return node;
  });

  pushDrive = this.RULE('pushDrive', (): Body<PushDrive> => this.driveTarget('PushDrive', O.PUSH_DRIVE));

  sinkDrive = this.RULE('sinkDrive', (): Body<SinkDrive> => this.driveTarget('SinkDrive', O.SINK_DRIVE));

  private driveTarget<K extends 'PushDrive' | 'SinkDrive'>(kind: K, set: OptionSet<Body<PushDrive | SinkDrive>>) {
    const connection = this.OPTION(() => this.SUBRULE(this.connection));
    // FORMAT is required and checked by the option set's finish.
    const node = withConnection(
      { kind, drive: driveOptions(), options: targetOptions() } as Body<PushDrive | SinkDrive>,
      connection,
    );
    this.bag(new Occurrences(), set, node, this.stmtEnd);
    return node as Body<Extract<PushDrive | SinkDrive, { kind: K }>>;
  }

  pushDb = this.RULE('pushDb', (): Body<PushDb> => {
    const connection = this.SUBRULE(this.connection);
    const node: Body<PushDb> = { kind: 'PushDb', connection, autoMerge: false, options: targetOptions() };
    this.bag(new Occurrences(), O.PUSH_DB, node, this.stmtEnd);
    return node;
  });

  sinkDb = this.RULE('sinkDb', (): Body<SinkDb> => {
    const connection = this.SUBRULE(this.connection);
    // TABLE is required and checked by the option set's finish.
    const node = { kind: 'SinkDb', connection, replace: false, autoClean: false } as Body<SinkDb>;
    this.bag(new Occurrences(), O.SINK_DB, node, this.stmtEnd);
    return node;
  });

  merge = this.RULE('merge', (): Body<Merge> => {
    const connection = this.SUBRULE(this.connection);
    const node = {
      kind: 'Merge',
      connection,
      inserts: false,
      updates: false,
      deletes: false,
      schemaDrift: false,
    } as Body<Merge>;
    this.bag(new Occurrences(), O.MERGE, node, this.stmtEnd);
    return node;
  });

  print = this.RULE('print', (): Body<Print> => ({ kind: 'Print', text: this.SUBRULE(this.text) }));

  exit = this.RULE('exit', (): Body<Exit> => {
    const node: Body<Exit> = { kind: 'Exit' };
    this.bag(new Occurrences(), O.EXIT, node, this.stmtEnd);
    return node;
  });
}

export type BodyRule =
  | 'selectHttp'
  | 'selectDb'
  | 'selectDrive'
  | 'load'
  | 'applyTx'
  | 'applySchema'
  | 'applyPipeline'
  | 'applyHttp'
  | 'applyFilter'
  | 'addColumn'
  | 'zipColumn'
  | 'execOnDb'
  | 'capture'
  | 'pushHttp'
  | 'pushDrive'
  | 'sinkDrive'
  | 'pushDb'
  | 'sinkDb'
  | 'merge'
  | 'print'
  | 'exit';

function withConnection<N extends { connection?: ConnectionRef }>(node: N, connection: ConnectionRef | undefined): N {
  if (connection) node.connection = connection;
  return node;
}

function targetOptions() {
  return { discardOnSuccess: false, discardOnError: false };
}

function driveOptions() {
  return { addHeader: false, forceQuoted: false, flatten: false, trim: false, filePerRow: false };
}

export const grammar = new Grammar();
