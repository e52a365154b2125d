import type { Dataset } from '../dataset/dataset';
import type { Value } from '../dataset/types';
import type { OutputChannel } from '../output';
import type { Resources } from '../resources';
import type { Result } from '../results';
import type { OpenSession } from '../jobs/sessions';
import type { MagicLine } from '../script/cell';
import type { ConnectionStore } from '../workspace/connections';
import type { FlagSpec } from './args';

/** What magics may reach of the session (the Session implements it; magics never import it). */
export interface MagicHost {
  readonly workspace: string;
  readonly cwd: string;
  readonly connections: ConnectionStore;
  readonly dataset: Dataset;
  /** The magics this session knows (the language's own and its front end's). */
  readonly magics: MagicTable;
  /** The pipeline name of the session's cells: keys CDC state and names change logs. */
  pipeline: string;
  displayLimit: number;
  /** What the session holds open; a listener a magic starts is closed with the session. */
  readonly resources: Resources;
  /** Pipeline variables of the session, lowercase names (%webhook start sets @webhookurl). */
  readonly variables: Map<string, Value>;
  /** Output arriving outside a running cell (a listener's calls). */
  readonly output: OutputChannel;
  reset(): void;
  /** A new session on the same workspace, for a job run (jobs/sessions.ts). */
  openSession: OpenSession;
  /** Makes a dataset the interactive pipeline (%webhook take). */
  setDataset(dataset: Dataset): void;
}

/**
 * Which arguments of a magic may hold a secret (a password, a token, a variable's value): the line an
 * error shows under its caret masks them, keeping their width, and shows the others as written (a job
 * name, a trigger kind), so the user sees what the error is about (withoutMagicSecrets).
 */
export interface SecretArgs {
  /**
   * Options whose value may be one: `--bearer tok`, `--bearer=tok`; after a switch among them, the word
   * written by mistake as its value (`%job create … --signing-secret whsec_…`). An option the magic
   * does not know is taken as one of these: it may be a misspelt `--bearer`.
   */
  options?: readonly string[];
  /**
   * By subcommand (`''` for the cell form `%%name`): the first positional argument that may be one, and
   * every one after it, as a value with blanks written unquoted is several words (`%var set k a b`: 1).
   */
  positionalFrom?: Readonly<Record<string, number>>;
}

/**
 * A magic: a front-end-independent command of the session (not SQL CDC). Both the REPL and the
 * kernel run magics through Session.execute, so each exists once.
 */
export interface Magic {
  name: string;
  /** One line: `%name <args>` as the user types it. */
  usage: string;
  description: string;
  /** Subcommands/words offered by completion after `%name `. */
  words?: string[];
  /** Each subcommand's options, the table it parses them with (`start` → --port, --job, --no-auth): completion offers them. */
  options?: Readonly<Record<string, FlagSpec>>;
  /**
   * The cell form's arguments, the table it parses them with: the words each position takes
   * (`%%job NAME reader|writer`; undefined where the word is the user's), then its options.
   */
  cellArgs?: { positional: readonly (readonly string[] | undefined)[]; options: FlagSpec };
  /** The arguments that may hold a secret, which the line an error shows under its caret masks. */
  secretArgs?: SecretArgs;
  run(
    session: MagicHost,
    args: string,
    line: MagicLine,
  ): AsyncIterable<Result> | Iterable<Result> | Promise<AsyncIterable<Result> | Iterable<Result>>;
  /**
   * As a cell magic (`%%name args` on a cell's first line): the rest of the cell is its body, not run as
   * SQL CDC. `cell` is the whole cell and where the body starts in it, for positions in the cell's lines.
   */
  cell?(
    session: MagicHost,
    args: string,
    body: string,
    cell: { text: string; bodyOffset: number },
  ): Promise<Result[]> | Result[];
}

/**
 * What %help, completion, did-you-mean and the docs read of a magic: all but its code, which loads on
 * its first use (magics/index.ts).
 */
export type MagicInfo = Omit<Magic, 'run' | 'cell'>;

/** A session's magics by name: the single source for running them, %help and completion. */
export class MagicTable {
  private readonly byName: Map<string, Magic>;

  constructor(magics: readonly Magic[]) {
    this.byName = new Map(magics.map((m) => [m.name.toLowerCase(), m]));
  }

  all(): Magic[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  find(name: string): Magic | undefined {
    return this.byName.get(name.toLowerCase());
  }
}
