import type { TokenType } from 'chevrotain';
import type { Position } from '../errors';
import type {
  AddColumn,
  ApplyFilter,
  ApplyHttp,
  ApplyPipeline,
  ApplySchema,
  ApplyTx,
  Capture,
  ConnectionRef,
  DocFormat,
  DriveFormat,
  DriveWriteOptions,
  Exit,
  ExecOnDb,
  HttpOptions,
  HttpSection,
  Load,
  Merge,
  PagingMode,
  PushDb,
  PushHttp,
  RetryOptions,
  RetryPolicy,
  SelectDb,
  SelectDrive,
  SelectHttp,
  SinkDb,
  SinkDrive,
  TargetOptions,
  Text,
  TraceSpec,
  TxSpec,
  ZipColumn,
  PushDrive,
} from './ast';
import { KW, type KeywordName } from './tokens';

/**
 * The options of every statement, as data: the grammar builds one alternative per spelling, the error
 * messages list the names, and docs/language.md documents each with its `doc`. An option may come in
 * any order after the statement's fixed part, each at most once, with or without a leading WITH.
 */

/** A node under construction: the statement without the fields the parser adds last. */
export type Body<S> = S extends unknown ? Omit<S, 'keyword' | 'pos' | 'source'> : never;

export interface DbSection {
  sql: Text;
  timeout?: number;
  batch?: number;
}

export interface Word {
  /** Upper-cased, from an unquoted word or a quoted string (`FORMAT CSV` = `FORMAT 'CSV'`). */
  name: string;
  pos: Position;
}

/** What follows an option's keyword(s), and the value the setter receives. */
export interface ValueTypes {
  flag: true;
  text: Text;
  int: number;
  /** A whole number of 1 or more (BATCH: rows a call, a transaction or a document holds). */
  count: number;
  seconds: number;
  word: Word;
  connText: { connection?: ConnectionRef; folder: Text };
  tx: TxSpec;
  pipeline: Body<ApplyPipeline>;
  trace: TraceSpec;
  retry: RetryPolicy;
  httpSection: HttpSection;
  dbSection: DbSection;
}
export type ValueKind = keyof ValueTypes;

export interface SetContext {
  /** Where the option's keyword is (for OptionSet.finish: where the statement or clause ends). */
  at: Position;
  name: string;
  /** A semantic error at `pos` (default: `at`). */
  fail(message: string, pos?: Position): never;
}

export interface OptionDef<N> {
  /** Canonical name (its first spelling), as shown in messages and docs. */
  name: string;
  /** Keyword sequences that introduce it, e.g. [[KEY_COLUMNS], [KEY, COLUMNS]]. */
  spellings: TokenType[][];
  value: ValueKind;
  /** How the value is written, for the docs. */
  arg: string;
  /** The closed list of values, as written ('page' quoted, CSV bare), when there is one (completion offers them). */
  values?: readonly string[];
  doc: string;
  set(node: N, value: never, ctx: SetContext): void;
}

export interface OptionSet<N> {
  options: OptionDef<N>[];
  /**
   * Checks across options (required ones, combinations), run once all are read; `ctx.at` is the end
   * of the statement or clause, where a missing required part was expected.
   */
  finish?(node: N, ctx: SetContext): void;
}

const DEFAULT_ARG: Record<ValueKind, string> = {
  flag: '',
  text: "'…'",
  int: 'n',
  count: 'n',
  seconds: 'seconds',
  word: '…',
  connText: "{ [CONN] } '<folder>'",
  tx: "<'path' | (path)>",
  pipeline: '( <statements> ) { BREAK_ON_EMPTY } { BYPASS }',
  trace: "{ INTO } { [CONN] } TABLE '<table>' { trace options }",
  retry: '<LINEAR | EXPONENTIAL> (count, seconds)',
  httpSection: '(<verb> <path or URL>) { section options }',
  dbSection: '(<native SQL>) { TIMEOUT seconds } { BATCH n }',
};

function words(spelling: string): TokenType[] {
  return spelling.split(' ').map((w) => {
    const t = KW[w as KeywordName];
    if (!t) throw new Error(`option spelling uses '${w}', which is not a keyword`);
    return t;
  });
}

/** A value from a closed list: the docs show the list as the argument, completion offers it. */
interface Choices {
  values: readonly string[];
}

function choices(values: readonly string[], quoted = false): Choices {
  return { values: quoted ? values.map((v) => `'${v}'`) : values };
}

function builder<N>() {
  const make =
    <K extends ValueKind>(value: K) =>
    (
      spelling: string,
      doc: string,
      set: (node: N, value: ValueTypes[K], ctx: SetContext) => void,
      arg?: string | Choices,
    ): OptionDef<N> => {
      const spellings = spelling.split('|');
      const def: OptionDef<N> = {
        name: spellings[0],
        spellings: spellings.map(words),
        value,
        arg: DEFAULT_ARG[value],
        doc,
        set: set,
      };
      if (typeof arg === 'string') def.arg = arg;
      else if (arg) [def.arg, def.values] = [arg.values.join(' | '), arg.values];
      return def;
    };
  return {
    flag: make('flag'),
    text: make('text'),
    int: make('int'),
    count: make('count'),
    seconds: make('seconds'),
    word: make('word'),
    connText: make('connText'),
    tx: make('tx'),
    pipeline: make('pipeline'),
    trace: make('trace'),
    retry: make('retry'),
    httpSection: make('httpSection'),
    dbSection: make('dbSection'),
  };
}

/** A value from a closed list, compared case-insensitively with spaces collapsed ('Left  Join'). */
function oneOf<T extends string>(
  value: string,
  allowed: readonly T[],
  what: string,
  ctx: SetContext,
  pos: Position,
): T {
  const found = allowed.find((a) => a.toLowerCase() === value.toLowerCase().replace(/\s+/g, ' ').trim());
  if (found === undefined) ctx.fail(`unknown ${what} '${value}': expected ${list(allowed.map((a) => `'${a}'`))}`, pos);
  return found;
}

export function list(items: readonly string[], last = 'or'): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

function exclusive(ctx: SetContext, other: string | undefined): void {
  if (other) ctx.fail(`${ctx.name} cannot be combined with ${other}`);
}

// ------------------------------------------------------------------ shared sets

const DRIVE_FORMATS: readonly DriveFormat[] = ['CSV', 'JSON', 'NDJSON', 'XML', 'RAW', 'PARQUET'];
const DOC_FORMATS: readonly DocFormat[] = ['JSON', 'XML', 'CSV'];

function format<T extends string>(w: Word, allowed: readonly T[], ctx: SetContext): T {
  return oneOf(w.name, allowed, 'format', ctx, w.pos);
}

/** RETRY_* and TRACE, for the node whose retry options `of` returns (SELECT/APPLY HTTP, PUSH INTO HTTP sections). */
function retryOptions<N>(of: (node: N) => RetryOptions): OptionDef<N>[] {
  const retry = builder<N>();
  return [
    retry.text('RETRY_ON', 'retry when this text is in the response (or the RETRY_PATH node)', (n, v, c) => {
      exclusive(c, of(n).retryOnRegex && 'RETRY_ONREGEX');
      of(n).retryOn = v;
    }),
    retry.text('RETRY_ONREGEX', 'retry when this regular expression matches the response', (n, v, c) => {
      exclusive(c, of(n).retryOn && 'RETRY_ON');
      of(n).retryOnRegex = v;
    }),
    retry.text('RETRY_PATH', 'the response node RETRY_ON/RETRY_ONREGEX look at', (n, v) => {
      of(n).retryPath = v;
    }),
    retry.seconds('RETRY_INTERVAL', 'seconds between retries (default 1)', (n, v) => {
      of(n).retryInterval = v;
    }),
    retry.int('RETRY_COUNT', 'maximum retries (default 1)', (n, v) => {
      of(n).retryCount = v;
    }),
    retry.trace('TRACE', 'store each request and response in a database table', (n, v) => {
      of(n).trace = v;
    }),
  ];
}

const http = builder<{ options: HttpOptions }>();
const PAGING_MODES: readonly PagingMode[] = ['none', 'offset', 'page', 'link', 'token'];
const PROCESSING = ['continue', 'replace', 'inner join', 'left join', 'enhance'] as const;

function paging(n: { options: HttpOptions }, ctx: SetContext) {
  if (!n.options.paging) ctx.fail(`${ctx.name} must follow PAGING '<mode>'`);
  return n.options.paging;
}

/** Options of SELECT FROM HTTP and APPLY HTTP. */
const HTTP_OPTIONS = [
  http.text(
    'PAGING',
    'paging mode: none, offset, page, link or token',
    (n, v, c) => {
      n.options.paging = { mode: oneOf(v.value, PAGING_MODES, 'paging mode', c, v.pos), pos: c.at };
    },
    choices(PAGING_MODES, true),
  ),
  http.text('PAGING_PARAM', 'the query parameter that carries the offset, page number or token', (n, v, c) => {
    paging(n, c).param = v;
  }),
  http.text('PAGING_PATH', 'where the response holds the next link or token', (n, v, c) => {
    paging(n, c).path = v;
  }),
  http.seconds('TIMEOUT', 'maximum seconds for each HTTP call', (n, v) => {
    n.options.timeout = v;
  }),
  http.text('HEADERS', 'headers added to the request (JSON array of key/value objects)', (n, v) => {
    n.options.headers = v;
  }),
  http.text(
    'PAYLOAD',
    'request body; may hold {{field}}, #f() and @f()',
    (n, v) => {
      n.options.payload = v;
    },
    "(…) | '…'",
  ),
  http.text('CONTENT_TYPE', 'Content-Type of the body', (n, v) => {
    n.options.contentType = v;
  }),
  http.flag('RETURN_BYTES', 'keep the response as bytes', (n) => {
    n.options.returnBytes = true;
  }),
  http.text(
    'PROCESSING',
    'continue: call once, keep the dataset; replace: the response becomes the dataset; enhance: add response columns; inner/left join: call once per row',
    (n, v, c) => {
      n.options.processing = oneOf(v.value, PROCESSING, 'PROCESSING mode', c, v.pos);
    },
    choices(PROCESSING, true),
  ),
  http.text(
    'WHEN',
    'filter: only matching rows are sent',
    (n, v) => {
      n.options.when = v;
    },
    "'<filter>'",
  ),
  http.int('SHIFT_ROWS', 'rows skipped before calling', (n, v) => {
    n.options.shiftRows = v;
  }),
  http.flag('CONTINUE_ON_ERRORS', 'keep going when a call fails', (n) => {
    n.options.continueOnErrors = true;
  }),
  http.text(
    'CONTINUE_ON_HTTPERROR|CONTINUE_ON_HTTP',
    'HTTP status codes that do not stop processing',
    (n, v) => {
      n.options.continueOnHttpError = v;
    },
    "'<codes>'",
  ),
  ...retryOptions<{ options: HttpOptions }>((n) => n.options),
];

const reader = builder<{ tx?: TxSpec; rawCol?: Text; pipeline?: ApplyPipeline }>();
const READ_OPTIONS = [
  reader.tx('APPLY TX', 'turn the payload into rows with a document path', (n, v) => {
    n.tx = v;
  }),
  reader.text(
    'RAWCOL',
    'add the raw XML/JSON of each row in this column',
    (n, v) => {
      n.rawCol = v;
    },
    "'<column>'",
  ),
  reader.pipeline('APPLY PIPELINE', 'statements run once per page of data', (n, v) => {
    n.pipeline = v as ApplyPipeline;
  }),
];

const trace = builder<TraceSpec>();
export const TRACE_OPTIONS: OptionSet<TraceSpec> = {
  options: [
    trace.text(
      'TABLE',
      'the trace table',
      (n, v) => {
        n.table = v;
      },
      "'<table>'",
    ),
    trace.flag('WITH_PAYLOAD', 'store the response payload too', (n) => {
      n.withPayload = true;
    }),
    trace.flag('ADD_TRACKING_FIELDS', 'add executionId, pipeline name, execution date…', (n) => {
      n.addTrackingFields = true;
    }),
    trace.flag('TRUNCATE', 'truncate the trace table first', (n, _, c) => {
      exclusive(c, n.truncateAppend ? 'TRUNCATE_APPEND' : undefined);
      n.truncate = true;
    }),
    trace.flag('TRUNCATE_APPEND', 'truncate first, then append across pages', (n, _, c) => {
      exclusive(c, n.truncate ? 'TRUNCATE' : undefined);
      n.truncateAppend = true;
    }),
    trace.connText(
      'STAGE ON',
      'each batch of trace rows goes through a file of this folder (local, drive or FTP) into the table',
      (n, v) => {
        n.stage = { ...v };
      },
      "{ [CONN] } '<folder or container>'",
    ),
    trace.text(
      'CREDENTIALS',
      "user:password (FTP), KEY_ID:SECRET (S3) or ACCOUNT:KEY (Azure) signing in to a stage instead of its connection's",
      (n, v, c) => {
        if (!n.stage) return c.fail('CREDENTIALS must follow STAGE ON');
        n.stage.credentials = v;
      },
    ),
    trace.text(
      'EXEC',
      'SQL run on the trace database after each batch',
      (n, v) => {
        n.exec = v;
      },
      '(<sql>)',
    ),
  ],
  finish(n, c) {
    if (!n.table) c.fail("TRACE needs TABLE '<table>'");
  },
};

const section = builder<HttpSection>();
/** Options of one ON_UPSERT / ON_DELETE section of PUSH INTO HTTP. */
export const HTTP_SECTION_OPTIONS: OptionSet<HttpSection> = {
  options: [
    section.text('HEADERS', 'headers added to the request (JSON array of key/value objects)', (n, v) => {
      n.headers = v;
    }),
    section.text('CONTENT_TYPE', 'Content-Type for POST, PUT and PATCH', (n, v) => {
      n.contentType = v;
    }),
    section.text(
      'PAYLOAD',
      'request body: {{field}}, functions, @concatjson(…) with BATCH > 1',
      (n, v) => {
        n.payload = v;
      },
      "(…) | '…'",
    ),
    section.text(
      'CONTINUE_ON_HTTP|CONTINUE_ON_HTTPERROR',
      'HTTP status codes that do not stop processing',
      (n, v) => {
        n.continueOnHttp = v;
      },
      "'<codes>'",
    ),
    section.text('THROW_ON_REGEX', 'fail when this regular expression matches the response body', (n, v) => {
      n.throwOnRegex = v;
    }),
    ...retryOptions<HttpSection>((n) => n),
  ],
};

const dbSection = builder<DbSection>();
/** Options of one ON_UPSERT / ON_DELETE section of PUSH INTO DB. */
export const DB_SECTION_OPTIONS: OptionSet<DbSection> = {
  options: [
    dbSection.seconds('TIMEOUT', 'maximum seconds for the SQL of each batch', (n, v) => {
      n.timeout = v;
    }),
    dbSection.count('BATCH', 'rows per transaction (default 50000)', (n, v) => {
      n.batch = v;
    }),
  ],
};

const target = builder<{ options: TargetOptions }>();
/** WITH options of every PUSH/SINK target. */
const TARGET_OPTIONS = [
  target.flag('DISCARD_ON_SUCCESS', 'delete the change log after success', (n) => {
    n.options.discardOnSuccess = true;
  }),
  target.flag('DISCARD_ON_ERROR', 'delete the change log on failure', (n) => {
    n.options.discardOnError = true;
  }),
  target.text(
    'DLQ_ON_ERROR',
    'move the change log to this folder on failure',
    (n, v) => {
      n.options.dlqOnError = v;
    },
    "'<folder>'",
  ),
  target.retry('RETRY', 'on failure retry up to count times, waiting seconds (growing exponentially)', (n, v) => {
    n.options.retry = v;
  }),
];
const HTTP_TARGET_OPTIONS = [
  ...TARGET_OPTIONS,
  target.seconds('TIMEOUT', 'maximum seconds for each HTTP operation', (n, v) => {
    n.options.timeout = v;
  }),
  target.count('BATCH', 'records grouped into one HTTP call', (n, v) => {
    n.options.batch = v;
  }),
];

const drive = builder<{ drive: DriveWriteOptions; format: DriveFormat }>();
const DRIVE_OPTIONS = [
  drive.word(
    'FORMAT',
    'file format',
    (n, v, c) => {
      n.format = format(v, DRIVE_FORMATS, c);
    },
    choices(DRIVE_FORMATS),
  ),
  drive.text(
    'FILE',
    'file name (may hold functions)',
    (n, v) => {
      n.drive.file = v;
    },
    "'<name>'",
  ),
  drive.text('CONTAINER', 'folder under the drive the files go in (may hold functions)', (n, v) => {
    n.drive.container = v;
  }),
  drive.text('DATE_FIELD', 'datetime column: one file per day, in yyyy/MM/dd folders', (n, v) => {
    n.drive.dateField = v;
  }),
  drive.text('COMPRESSION', 'Parquet codec: snappy (default), gzip, brotli or none', (n, v) => {
    n.drive.compression = v;
  }),
  drive.int('ROWS_PER_GROUP', 'Parquet rows per row group (default 100000)', (n, v) => {
    n.drive.rowsPerGroup = v;
  }),
  drive.text('DELIMITER', 'CSV field delimiter (\\t for a tab)', (n, v) => {
    n.drive.delimiter = v;
  }),
  drive.text('COMMENT_TOKENS', 'CSV: quote a record starting with one of these comma-separated tokens', (n, v) => {
    n.drive.commentTokens = v;
  }),
  drive.text('FIXED_LENGTH', 'CSV fixed field widths, one per column (w,w,…)', (n, v) => {
    n.drive.fixedLength = v;
  }),
  drive.text('DATE_FORMAT', '.NET format of datetime values', (n, v) => {
    n.drive.dateFormat = v;
  }),
  drive.flag('ADD_HEADER', 'write a CSV header line', (n) => {
    n.drive.addHeader = true;
  }),
  drive.flag('FORCE_QUOTED', 'quote every CSV field', (n) => {
    n.drive.forceQuoted = true;
  }),
  drive.flag('FLATTEN', 'line breaks inside text values become a blank', (n) => {
    n.drive.flatten = true;
  }),
  drive.flag('TRIM', 'trim blanks around text values', (n) => {
    n.drive.trim = true;
  }),
  drive.flag('FILE_PER_ROW', 'one file per row, FILE evaluated per row with {{field}}', (n) => {
    n.drive.filePerRow = true;
  }),
  drive.text('ROOT_NODE', 'JSON: the key the rows sit under; XML: the root element', (n, v) => {
    n.drive.rootNode = v;
  }),
  drive.text('ELEMENT', 'XML element of each row (default row)', (n, v) => {
    n.drive.element = v;
  }),
  drive.text(
    'COLUMN',
    'the field whose value is the file content (json/xml/raw)',
    (n, v) => {
      n.drive.column = v;
    },
    "'<field>'",
  ),
];

function requireFormat(n: { format?: string }, c: SetContext): void {
  if (!n.format) c.fail(`${c.name} needs FORMAT <PARQUET|CSV|JSON|NDJSON|XML|RAW>`);
}

// ------------------------------------------------------------------ statements

export const SELECT_HTTP: OptionSet<Body<SelectHttp>> = { options: [...READ_OPTIONS, ...HTTP_OPTIONS] };
export const APPLY_HTTP: OptionSet<Body<ApplyHttp>> = { options: [READ_OPTIONS[0], ...HTTP_OPTIONS] };

const selectDb = builder<Body<SelectDb>>();
export const SELECT_DB: OptionSet<Body<SelectDb>> = {
  options: [
    selectDb.pipeline('APPLY PIPELINE', 'statements run once per page of rows', (n, v) => {
      n.pipeline = v as ApplyPipeline;
    }),
  ],
};

const selectDrive = builder<Body<SelectDrive>>();
export const SELECT_DRIVE: OptionSet<Body<SelectDrive>> = {
  options: [
    selectDrive.word(
      'FORMAT',
      'file format (default: from the extension)',
      (n, v, c) => {
        n.format = format(v, DRIVE_FORMATS, c);
      },
      choices(DRIVE_FORMATS),
    ),
    selectDrive.text(
      'OPTIONS',
      "CSV reading options as key:value pairs ('headers:1 delimiter:;')",
      (n, v) => {
        n.formatOptions = v;
      },
      "'<key:value …>'",
    ),
    ...READ_OPTIONS,
  ],
};

const load = builder<Body<Load>>();
export const LOAD: OptionSet<Body<Load>> = {
  options: [
    load.connText('PATH', 'folder of the change logs (default: the workspace store)', (n, v) => {
      n.path = v;
    }),
    load.text(
      'KEY_COLUMNS|KEY COLUMNS',
      'key columns of the change log',
      (n, v) => {
        n.keyColumns = v;
      },
      "'<col,…>'",
    ),
    load.flag('CHECK_SIGNATURE', 'verify the change log signature', (n) => {
      n.checkSignature = true;
    }),
    load.text(
      'PREVIEW_FILE',
      'read this change log file instead (preview)',
      (n, v) => {
        n.previewFile = v;
      },
      "'<file>'",
    ),
    load.text(
      'INITIAL_ID',
      'execution id to start after when the writer has none',
      (n, v) => {
        n.initialId = v;
      },
      "'<id>'",
    ),
  ],
};

const applyTx = builder<Body<ApplyTx>>();
export const APPLY_TX: OptionSet<Body<ApplyTx>> = {
  options: [
    applyTx.text(
      'ON',
      'the column holding the document (default: the dataset itself)',
      (n, v) => {
        n.tx.on = v;
      },
      "'<column>'",
    ),
  ],
};

const schema = builder<Body<ApplySchema>>();
export const APPLY_SCHEMA: OptionSet<Body<ApplySchema>> = {
  options: [
    schema.flag('CONTINUE_ON_ERROR', 'keep values that do not convert as null instead of failing', (n) => {
      n.continueOnError = true;
    }),
    schema.flag('STRICT_COLUMNS', 'drop columns not listed', (n) => {
      n.strictColumns = true;
    }),
    schema.flag('FX_BY_ROW', 'evaluate # functions of defaults once per row', (n) => {
      n.fxByRow = true;
    }),
  ],
};

const pipeline = builder<Body<ApplyPipeline>>();
export const APPLY_PIPELINE: OptionSet<Body<ApplyPipeline>> = {
  options: [
    pipeline.flag('BREAK_ON_EMPTY', 'stop the pipeline when the dataset becomes empty', (n) => {
      n.breakOnEmpty = true;
    }),
    pipeline.flag('BYPASS', 'skip the pipeline', (n) => {
      n.bypass = true;
    }),
  ],
};

const filter = builder<Body<ApplyFilter>>();
export const APPLY_FILTER: OptionSet<Body<ApplyFilter>> = {
  options: [
    filter.text(
      'ON',
      'the column the REGEX, XPATH or TX filter reads',
      (n, v) => {
        n.on = v;
      },
      "'<column>'",
    ),
    filter.int('LIMIT', 'maximum number of rows kept', (n, v) => {
      n.limit = v;
    }),
    filter.text(
      'ORDER BY',
      'ordering applied before LIMIT',
      (n, v) => {
        n.orderBy = v;
      },
      "'<col> [ASC|DESC], …'",
    ),
    filter.flag('KEEP_EMPTY', 'keep rows with no data in the ON column (regex, xpath, tx)', (n) => {
      n.keepEmpty = true;
    }),
    filter.flag('KEEP_INVALID', 'keep rows with invalid data in the ON column (regex, xpath, tx)', (n) => {
      n.keepInvalid = true;
    }),
    filter.flag('CASE_INSENSITIVE', 'case-insensitive regular expression', (n) => {
      n.caseInsensitive = true;
    }),
    filter.flag('SINGLE_LINE', 'single-line regular expression matching', (n) => {
      n.singleLine = true;
    }),
  ],
  finish(n, c) {
    if (n.mode !== 'SQL' && !n.on) c.fail(`APPLY FILTER ${n.mode} needs ON '<column>'`);
  },
};

/** ADD COLUMN's FORMAT parts are collected here, then checked and attached by the grammar. */
const add = builder<Body<AddColumn> & { expression?: Text }>();
function formatOf(n: Body<AddColumn>, c: SetContext) {
  if (!n.format) c.fail(`${c.name} must follow FORMAT <JSON|XML|CSV>`);
  return n.format;
}
export const ADD_COLUMN: OptionSet<Body<AddColumn> & { expression?: Text }> = {
  options: [
    add.text(
      'EXPRESSION',
      "the default (older spelling: ADD COLUMN 'name' WITH EXPRESSION '…')",
      (n, v) => {
        n.expression = v;
      },
      "'<default>'",
    ),
    add.word(
      'FORMAT',
      'build a JSON, XML or CSV fragment per row',
      (n, v, c) => {
        n.format = { pos: c.at, format: format(v, DOC_FORMATS, c), includeNot: false, collapse: false };
      },
      choices(DOC_FORMATS),
    ),
    add.text(
      'INCLUDE',
      'FORMAT only these fields',
      (n, v, c) => {
        const f = formatOf(n, c);
        exclusive(c, f.include && 'INCLUDE');
        f.include = v;
      },
      "'<cols>'",
    ),
    add.text(
      'INCLUDE NOT',
      'FORMAT every field but these',
      (n, v, c) => {
        const f = formatOf(n, c);
        exclusive(c, f.include && 'INCLUDE');
        f.include = v;
        f.includeNot = true;
      },
      "'<cols>'",
    ),
    add.text(
      'EXCLUDE',
      'FORMAT every field but these (ignored with INCLUDE)',
      (n, v, c) => {
        formatOf(n, c).exclude = v;
      },
      "'<cols>'",
    ),
    add.flag('COLLAPSE', 'remove the fields used by FORMAT', (n, _, c) => {
      formatOf(n, c).collapse = true;
    }),
    add.text(
      'WHEN',
      'FORMAT only rows matching this filter',
      (n, v, c) => {
        formatOf(n, c).when = v;
      },
      "'<filter>'",
    ),
    add.text(
      'OPTIONS',
      'FORMAT options as key:value pairs separated by spaces',
      (n, v, c) => {
        formatOf(n, c).options = v;
      },
      "'<key:value …>'",
    ),
    add.flag('IGNORE_IF_EXISTS', 'do nothing when the column exists (ignored with OR ALTER)', (n) => {
      n.ignoreIfExists = true;
    }),
    add.flag('CONTINUE_ON_ERROR', 'keep going when a value fails', (n) => {
      n.continueOnError = true;
    }),
  ],
};

const zip = builder<Body<ZipColumn>>();
export const ZIP_COLUMN: OptionSet<Body<ZipColumn>> = {
  options: [
    zip.word(
      'FORMAT',
      'document format of the batches',
      (n, v, c) => {
        n.format = format(v, DOC_FORMATS, c);
      },
      choices(DOC_FORMATS),
    ),
    zip.count('BATCH', 'rows per document (default: all rows in one)', (n, v) => {
      n.batch = v;
    }),
  ],
  finish(n, c) {
    if (!n.format) c.fail('ZIP COLUMN needs FORMAT <CSV|JSON|XML>');
  },
};

const exec = builder<Body<ExecOnDb>>();
export const EXEC_ON_DB: OptionSet<Body<ExecOnDb>> = {
  options: [
    exec.flag('PER_ROW', 'run the SQL once per row ({{field}} and functions per row)', (n) => {
      n.perRow = true;
    }),
  ],
};

const capture = builder<Body<Capture>>();
export const CAPTURE: OptionSet<Body<Capture>> = {
  options: [
    capture.flag('INSERTS|INSERT', 'capture records inserted since the last capture', (n) => {
      n.inserts = true;
    }),
    capture.flag('UPDATES|UPDATE', 'capture records updated since the last capture', (n) => {
      n.updates = true;
    }),
    capture.flag('DELETES|DELETE', 'capture records deleted since the last capture', (n) => {
      n.deletes = true;
    }),
    capture.text(
      'ON KEYS',
      'columns identifying a record; engages change detection',
      (n, v) => {
        n.keys = v;
      },
      "'<col,…>'",
    ),
    capture.text(
      'OBSERVE',
      'columns checked for updates (default: all)',
      (n, v) => {
        n.observe = v;
      },
      "'<col,…>'",
    ),
    capture.flag('INIT_ON_FIRST_RUN', 'first run only initializes the CDC state (no change log)', (n) => {
      n.initOnFirstRun = true;
    }),
    capture.flag('IGNORE_DUPS', 'discard records duplicated under KEYS', (n) => {
      n.ignoreDups = true;
    }),
    capture.connText('PATH', 'where change logs are stored (default: the workspace store)', (n, v) => {
      n.path = v;
    }),
    capture.text(
      'CDCMARKER',
      'add this field holding I (inserted) or U (updated)',
      (n, v) => {
        n.cdcMarker = v;
      },
      "'<field>'",
    ),
    capture.text(
      'ENCRYPT_CERT',
      'encrypt the change log with this certificate',
      (n, v) => {
        n.encryptCert = v;
      },
      "'<thumbprint>'",
    ),
    capture.text(
      'SIGN_CERT',
      'sign the change log with this certificate',
      (n, v) => {
        n.signCert = v;
      },
      "'<thumbprint>'",
    ),
  ],
  finish(n, c) {
    if (n.observe && !n.keys) c.fail("OBSERVE needs ON KEYS '<col,…>'", n.observe.pos);
  },
};

const pushHttp = builder<Body<PushHttp>>();
export const PUSH_HTTP: OptionSet<Body<PushHttp>> = {
  options: [
    pushHttp.httpSection('ON_UPSERT', 'the call made for the upsert stream', (n, v) => {
      n.onUpsert = v;
    }),
    pushHttp.httpSection('ON_DELETE', 'the call made for the delete stream', (n, v) => {
      n.onDelete = v;
    }),
    ...HTTP_TARGET_OPTIONS,
  ],
  finish(n, c) {
    if (!n.onUpsert && !n.onDelete) c.fail('PUSH INTO HTTP needs ON_UPSERT (…) or ON_DELETE (…)');
  },
};

export const PUSH_DRIVE: OptionSet<Body<PushDrive>> = {
  options: [...DRIVE_OPTIONS, ...TARGET_OPTIONS],
  finish: requireFormat,
};

export const SINK_DRIVE: OptionSet<Body<SinkDrive>> = {
  options: [...DRIVE_OPTIONS, ...TARGET_OPTIONS],
  finish(n, c) {
    requireFormat(n, c);
    if (!n.drive.file) c.fail("SINK INTO DRIVE needs FILE '<name>'");
  },
};

const pushDb = builder<Body<PushDb>>();
export const PUSH_DB: OptionSet<Body<PushDb>> = {
  options: [
    pushDb.text(
      'TABLE',
      'target table',
      (n, v) => {
        n.table = v;
      },
      "'<table>'",
    ),
    pushDb.flag('AUTO_MERGE', 'merge the streams without a section into TABLE by the key columns', (n) => {
      n.autoMerge = true;
    }),
    pushDb.dbSection(
      'ON_UPSERT',
      'SQL run per row of the upsert stream (per batch when it names @pipelinedata())',
      (n, v) => {
        n.onUpsert = v;
      },
    ),
    pushDb.dbSection(
      'ON_DELETE',
      'SQL run per row of the delete stream (per batch when it names @pipelinedata())',
      (n, v) => {
        n.onDelete = v;
      },
    ),
    pushDb.text(
      'ON_INIT',
      'SQL run once before the streams',
      (n, v) => {
        n.onInit = v;
      },
      '(<sql>)',
    ),
    pushDb.text(
      'ON_COMPLETION',
      'SQL run once after the streams, after a failure too (@success tells which)',
      (n, v) => {
        n.onCompletion = v;
      },
      '(<sql>)',
    ),
    ...TARGET_OPTIONS,
  ],
  finish(n, c) {
    if (n.autoMerge && !n.table) c.fail("AUTO_MERGE needs TABLE '<table>': the table it merges the streams into");
    if (n.table && !n.autoMerge)
      c.fail(
        'TABLE names the table AUTO_MERGE writes: add AUTO_MERGE, or write the SQL of each stream in ON_UPSERT (…) / ON_DELETE (…)',
        n.table.pos,
      );
    if (!n.autoMerge && !n.onUpsert && !n.onDelete)
      c.fail("PUSH INTO DB needs TABLE '<table>' AUTO_MERGE, or ON_UPSERT (<sql>) / ON_DELETE (<sql>)");
  },
};

const sinkDb = builder<Body<SinkDb>>();
function sinkMode(mode: NonNullable<SinkDb['mode']>, doc: string) {
  return sinkDb.flag(mode, doc, (n, _, c) => {
    exclusive(c, n.mode);
    n.mode = mode;
  });
}
export const SINK_DB: OptionSet<Body<SinkDb>> = {
  options: [
    sinkDb.text(
      'TABLE',
      'target table (created from the dataset types when missing)',
      (n, v) => {
        n.table = v;
      },
      "'<table>'",
    ),
    sinkDb.text(
      'ON COLUMN',
      "write the records of the XML or JSON document each row holds in this column (as APPLY TX '$' ON)",
      (n, v) => {
        n.onColumn = v;
      },
      "'<xml column>'",
    ),
    sinkMode('TRUNCATE', 'empty the table first, each time the statement runs (each page in an inline pipeline)'),
    sinkMode('RECREATE', 'drop the table and create it from the dataset, each time the statement runs'),
    sinkMode('TRUNCATE_APPEND', 'empty the table the first time in the run, then append across pages'),
    sinkMode('RECREATE_APPEND', 'recreate the table the first time in the run, then append across pages'),
    sinkDb.flag('REPLACE', 'replace the rows whose primary key matches', (n) => {
      n.replace = true;
    }),
    sinkDb.flag('AUTO_CLEAN', 'a staging table: drop it when the run ends', (n) => {
      n.autoClean = true;
    }),
  ],
  finish(n, c) {
    if (!n.table) c.fail("SINK INTO DB needs TABLE '<table>'");
  },
};

const merge = builder<Body<Merge>>();
export const MERGE: OptionSet<Body<Merge>> = {
  options: [
    merge.text(
      'TABLE',
      'target table',
      (n, v) => {
        n.table = v;
      },
      "'<table>'",
    ),
    merge.text(
      'KEY_COLUMNS|KEY COLUMNS',
      'columns matching existing rows (none: append)',
      (n, v) => {
        n.keyColumns = v;
      },
      "'<col,…>'",
    ),
    merge.flag('INSERTS|INSERT', 'insert the rows whose key the table lacks', (n) => {
      n.inserts = true;
    }),
    merge.flag('UPDATES|UPDATE', 'update the matching rows that differ', (n) => {
      n.updates = true;
    }),
    merge.flag('DELETES|DELETE', 'delete the rows whose key the dataset lacks (it must hold every record)', (n) => {
      n.deletes = true;
    }),
    merge.flag('SCHEMA_DRIFT', 'add columns missing from the table', (n) => {
      n.schemaDrift = true;
    }),
  ],
  finish(n, c) {
    if (!n.table) c.fail("MERGE needs TABLE '<table>'");
  },
};

const exit = builder<Body<Exit>>();
export const EXIT: OptionSet<Body<Exit>> = {
  options: [
    exit.int('KEEP', 'keep the first n rows (0: the schema only)', (n, v) => {
      n.keep = v;
    }),
  ],
};

export const NO_OPTIONS: OptionSet<unknown> = { options: [] };
