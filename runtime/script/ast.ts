import type { Position } from '../errors';

/**
 * The typed AST of SQL CDC (spec 4.2, reference.md part A). The parser produces these nodes; the
 * commands in runtime/commands/ give them meaning. Strings are already unescaped (`''` → `'`);
 * parenthesised blocks (payloads, native SQL, pipelines' source) are kept verbatim without the outer
 * parentheses. Texts that may hold `#f()`, `@f()` and `{{field}}` stay raw here: the functions module
 * compiles them, so the AST holds no evaluation logic.
 */

export interface Node {
  /** Where the node starts in the cell text. */
  pos: Position;
}

/** A quoted string or a parenthesised block, with where its content starts (for error carets). */
export interface Text extends Node {
  value: string;
  /** 'quoted': '…' literal; 'block': ( … ) kept verbatim; 'bare': an unquoted word/number. */
  form: 'quoted' | 'block' | 'bare';
}

/** `[connection name]` (may contain spaces). */
export interface ConnectionRef extends Node {
  name: string;
}

export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `(GET /path)`: verb and the raw path/URL text (may contain functions and {{fields}}). */
export interface HttpCommand extends Node {
  verb: HttpVerb;
  target: Text;
}

export type PagingMode = 'none' | 'offset' | 'page' | 'link' | 'token';

/** RETRY_* and TRACE: how an HTTP call is retried and traced, in SELECT/APPLY HTTP and PUSH INTO HTTP sections. */
export interface RetryOptions {
  retryOn?: Text;
  retryOnRegex?: Text;
  retryPath?: Text;
  retryInterval?: number;
  retryCount?: number;
  trace?: TraceSpec;
}

/** Options shared by SELECT FROM HTTP and APPLY HTTP (reference.md A). */
export interface HttpOptions extends RetryOptions {
  paging?: { mode: PagingMode; param?: Text; path?: Text; pos: Position };
  timeout?: number;
  headers?: Text;
  payload?: Text;
  contentType?: Text;
  returnBytes?: boolean;
  processing?: 'continue' | 'replace' | 'inner join' | 'left join' | 'enhance';
  when?: Text;
  shiftRows?: number;
  continueOnErrors?: boolean;
  continueOnHttpError?: Text;
}

export interface TraceSpec extends Node {
  connection?: ConnectionRef;
  table?: Text;
  withPayload: boolean;
  addTrackingFields: boolean;
  truncate: boolean;
  truncateAppend: boolean;
  stage?: { connection?: ConnectionRef; folder: Text; credentials?: Text };
  exec?: Text;
}

/** APPLY TX target: a document path (`'$'`, `(..docs)`) or CSV options for a text column. */
export interface TxSpec extends Node {
  path: Text;
  on?: Text;
}

/** Common head of every statement. `keyword` is the canonical command name shown in errors. */
interface StatementBase extends Node {
  keyword: string;
  /** The statement's source text (without the trailing `;`). */
  source: string;
}

// ---------------------------------------------------------------- sources

export interface SelectHttp extends StatementBase {
  kind: 'SelectHttp';
  connection?: ConnectionRef;
  command: HttpCommand;
  tx?: TxSpec;
  options: HttpOptions;
  /** An inline APPLY PIPELINE: runs once per page. */
  pipeline?: ApplyPipeline;
  rawCol?: Text;
}

export interface SelectDb extends StatementBase {
  kind: 'SelectDb';
  connection: ConnectionRef;
  sql: Text;
  /** An inline APPLY PIPELINE: runs once per page of rows. */
  pipeline?: ApplyPipeline;
}

export type DriveFormat = 'CSV' | 'JSON' | 'NDJSON' | 'XML' | 'RAW' | 'PARQUET';

export interface SelectDrive extends StatementBase {
  kind: 'SelectDrive';
  connection?: ConnectionRef;
  path: Text;
  format?: DriveFormat;
  /** FORMAT key table options for CSV ('headers:1 delimiter:;'…). */
  formatOptions?: Text;
  tx?: TxSpec;
  rawCol?: Text;
  pipeline?: ApplyPipeline;
}

export interface Load extends StatementBase {
  kind: 'Load';
  upserts: boolean; // UPSERTS or INSERTS
  updates: boolean;
  deletes: boolean;
  connection?: ConnectionRef;
  name: Text;
  path?: { connection?: ConnectionRef; folder: Text };
  keyColumns?: Text;
  checkSignature: boolean;
  previewFile?: Text;
  initialId?: Text;
}

// ---------------------------------------------------------------- transformations

export interface ApplyTx extends StatementBase {
  kind: 'ApplyTx';
  tx: TxSpec;
}

export interface SchemaColumnSpec extends Node {
  /** Type as written ('bigint', 'decimal(10,2)', 'string[50]'); absent: string. */
  typeName?: string;
  name: string;
  description?: string;
  /** The default as written, at its place (a function or field in it is placed in the script). */
  default?: Text;
}

export interface ApplySchema extends StatementBase {
  kind: 'ApplySchema';
  columns: SchemaColumnSpec[];
  continueOnError: boolean;
  strictColumns: boolean;
  fxByRow: boolean;
}

export interface ApplyPipeline extends StatementBase {
  kind: 'ApplyPipeline';
  statements: Statement[];
  /** The block the statements were parsed from, verbatim. */
  body: Text;
  breakOnEmpty: boolean;
  bypass: boolean;
}

export interface ApplyHttp extends StatementBase {
  kind: 'ApplyHttp';
  connection?: ConnectionRef;
  command: HttpCommand;
  tx?: TxSpec;
  options: HttpOptions;
}

export type FilterMode = 'SQL' | 'REGEX' | 'XPATH' | 'TX';

export interface ApplyFilter extends StatementBase {
  kind: 'ApplyFilter';
  mode: FilterMode;
  expression: Text;
  on?: Text;
  limit?: number;
  orderBy?: Text;
  keepEmpty: boolean;
  keepInvalid: boolean;
  caseInsensitive: boolean;
  singleLine: boolean;
}

export type DocFormat = 'JSON' | 'XML' | 'CSV';

export interface FormatSpec extends Node {
  format: DocFormat;
  include?: Text;
  /** INCLUDE NOT '…': every field but those. */
  includeNot: boolean;
  exclude?: Text;
  collapse: boolean;
  when?: Text;
  options?: Text;
}

export interface AddColumn extends StatementBase {
  kind: 'AddColumn';
  orAlter: boolean;
  /** 'typed': '[type] name=default'; 'paren': (name='default'); 'expression': 'x' WITH EXPRESSION '…'. */
  shape: 'typed' | 'paren' | 'expression';
  name: string;
  typeName?: string;
  /** Where typeName starts (errors about the type point there). */
  typePos?: Position;
  /** Raw default text (constant, #f(), @f(), {{field}}, @sql(expr)); '' when none given. */
  default: Text;
  format?: FormatSpec;
  ignoreIfExists: boolean;
  continueOnError: boolean;
}

export interface ZipColumn extends StatementBase {
  kind: 'ZipColumn';
  column: Text;
  format: DocFormat;
  batch?: number;
}

export interface ExecOnDb extends StatementBase {
  kind: 'ExecOnDb';
  connection: ConnectionRef;
  sql: Text;
  perRow: boolean;
}

// ---------------------------------------------------------------- change logs and targets

export interface Capture extends StatementBase {
  kind: 'Capture';
  name?: Text;
  inserts: boolean;
  updates: boolean;
  deletes: boolean;
  keys?: Text;
  observe?: Text;
  initOnFirstRun: boolean;
  ignoreDups: boolean;
  path?: { connection?: ConnectionRef; folder: Text };
  cdcMarker?: Text;
  encryptCert?: Text;
  signCert?: Text;
}

export type RetryPolicy = { kind: 'LINEAR' | 'EXPONENTIAL'; count: number; seconds: number; pos: Position };

/** WITH options of PUSH/SINK targets. */
export interface TargetOptions {
  discardOnSuccess: boolean;
  discardOnError: boolean;
  dlqOnError?: Text;
  retry?: RetryPolicy;
  timeout?: number;
  batch?: number;
}

export interface HttpSection extends Node, RetryOptions {
  command: HttpCommand;
  headers?: Text;
  contentType?: Text;
  payload?: Text;
  continueOnHttp?: Text;
  throwOnRegex?: Text;
}

export interface PushHttp extends StatementBase {
  kind: 'PushHttp';
  connection?: ConnectionRef;
  onUpsert?: HttpSection;
  onDelete?: HttpSection;
  options: TargetOptions;
}

export interface DriveWriteOptions {
  dateField?: Text;
  container?: Text;
  file?: Text;
  compression?: Text;
  rowsPerGroup?: number;
  delimiter?: Text;
  commentTokens?: Text;
  fixedLength?: Text;
  dateFormat?: Text;
  addHeader: boolean;
  forceQuoted: boolean;
  flatten: boolean;
  trim: boolean;
  filePerRow: boolean;
  rootNode?: Text;
  element?: Text;
  column?: Text;
}

export interface SinkDrive extends StatementBase {
  kind: 'SinkDrive';
  connection?: ConnectionRef;
  format: DriveFormat;
  drive: DriveWriteOptions;
  options: TargetOptions;
}

export interface PushDrive extends StatementBase {
  kind: 'PushDrive';
  connection?: ConnectionRef;
  format: DriveFormat;
  drive: DriveWriteOptions;
  options: TargetOptions;
}

export interface SinkDb extends StatementBase {
  kind: 'SinkDb';
  connection: ConnectionRef;
  table: Text;
  onColumn?: Text;
  mode?: 'TRUNCATE' | 'RECREATE' | 'TRUNCATE_APPEND' | 'RECREATE_APPEND';
  replace: boolean;
  autoClean: boolean;
}

export interface PushDb extends StatementBase {
  kind: 'PushDb';
  connection: ConnectionRef;
  table?: Text;
  autoMerge: boolean;
  onUpsert?: { sql: Text; timeout?: number; batch?: number };
  onDelete?: { sql: Text; timeout?: number; batch?: number };
  onInit?: Text;
  onCompletion?: Text;
  options: TargetOptions;
}

export interface Merge extends StatementBase {
  kind: 'Merge';
  connection: ConnectionRef;
  table: Text;
  keyColumns?: Text;
  inserts: boolean;
  updates: boolean;
  deletes: boolean;
  schemaDrift: boolean;
}

// ---------------------------------------------------------------- control

export interface Print extends StatementBase {
  kind: 'Print';
  text: Text;
}

export interface Exit extends StatementBase {
  kind: 'Exit';
  keep?: number;
}

export type Statement =
  | SelectHttp
  | SelectDb
  | SelectDrive
  | Load
  | ApplyTx
  | ApplySchema
  | ApplyPipeline
  | ApplyHttp
  | ApplyFilter
  | AddColumn
  | ZipColumn
  | ExecOnDb
  | Capture
  | PushHttp
  | SinkDrive
  | PushDrive
  | SinkDb
  | PushDb
  | Merge
  | Print
  | Exit;

export type StatementKind = Statement['kind'];

/** A parsed cell/script. */
export interface Script {
  statements: Statement[];
}
