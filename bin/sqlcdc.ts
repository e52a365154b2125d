#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, OUTPUT_FORMATS, type OutputFormat } from './constants';
import { parseCommandLine, unknownWord, UsageError, type CommandGroup } from './subcommand';

/** Command groups, each in its own module, loaded when called. */
const GROUPS: Record<string, () => Promise<CommandGroup>> = {
  workspace: async () => (await import('./workspace')).workspaceCommands,
  changelog: async () => (await import('./changelog')).changelogCommands,
  job: async () => (await import('./job')).jobCommands,
  serve: async () => (await import('./serve')).serveCommand,
  webhook: async () => (await import('./webhook')).webhookCommands,
};

/** The usage of the commands that are not groups, as `sqlcdc help repl|run` prints it: lines, then options. */
const REPL_LINES = `  sqlcdc [repl] [--workspace DIR] [-i]
  sqlcdc repl --existing CONNECTION_FILE [-i]`;
const RUN_LINES = '  sqlcdc run <script.sql> [--workspace DIR] [--output table|json|csv]';
const WORKSPACE_OPTION = `  --workspace DIR         workspace folder (default: $SQLCDC_HOME, else the nearest .sqlcdc
                          folder here or in a parent folder, else a new ./.sqlcdc)`;
const RUN_EXIT_CODES =
  'Exit codes of run: 0 success, 1 script error (file:line:col on stderr), 2 bad usage, 130 interrupted.';
const COMMAND_USAGE = {
  repl: `Usage:\n${REPL_LINES}\n\nOptions:\n${WORKSPACE_OPTION}
  --existing FILE         attach to a running Jupyter kernel by its connection file
  -i, --interactive       banner and prompts even when stdin is not a terminal
`,
  run: `Usage:\n${RUN_LINES}\n\nOptions:\n${WORKSPACE_OPTION}
  --output FORMAT         table (default), json or csv; PRINT output and messages go to stderr

${RUN_EXIT_CODES}
`,
};

const ABOUT = `  sqlcdc help [COMMAND] | --help | --version

Commands:
  repl      the interactive SQL CDC REPL (the default)
  run       runs a script and prints the final dataset on stdout
  workspace rotate-key: seals every secret of the workspace again under a new key
  changelog show FILE: a change log's header and rows; changelog list [FOLDER]: the logs of a folder;
            changelog replay FILE --job NAME: the job's writer plays a kept log
  job       jobs of the workspace: reader and writer scripts, runs, triggers (docs/jobs.md)
  serve     the webhook listener: POST a payload to /job/push?guid=… (docs/webhook.md)
  webhook   key new|list|revoke: access keys of the listener

Options:
${WORKSPACE_OPTION}
  --output FORMAT         run: table (default), json or csv; PRINT output and messages go to stderr
  --existing FILE         repl: attach to a running Jupyter kernel by its connection file
  -i, --interactive       repl: banner and prompts even when stdin is not a terminal
  --check-signature       changelog show: fail unless the log is signed by a workspace certificate and unchanged
  -h, --help              this help
  -v, --version           the version

${RUN_EXIT_CODES}
`;

/**
 * `sqlcdc --help`: each group's usage as `sqlcdc GROUP --help` prints it, so the summary cannot
 * drift from the options a group takes. Loads every group, which only help and bad usage need.
 */
async function usage(): Promise<string> {
  const groups = await Promise.all(Object.values(GROUPS).map((group) => group()));
  return `Usage:\n${REPL_LINES}\n${RUN_LINES}\n${groups.map((g) => g.usage.replace(/\n$/, '')).join('\n')}\n${ABOUT}`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

interface Invocation {
  command: 'help' | 'version' | 'repl' | 'run';
  /** `sqlcdc help run`, `sqlcdc repl --help`: the usage of that command alone. */
  topic?: 'repl' | 'run';
  script?: string;
  workspace?: string;
  output: OutputFormat;
  existing?: string;
  interactive: boolean;
}

function parseInvocation(argv: string[]): Invocation {
  const parsed = parseCommandLine(argv, {
    workspace: { type: 'string' },
    output: { type: 'string' },
    existing: { type: 'string' },
    interactive: { type: 'boolean', short: 'i' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  });
  const { values, positionals } = parsed;
  const [command = 'repl', ...rest] = positionals;
  // Checked before --help: `sqlcdc help jbo` is a typo to point out, not a request for the usage.
  if (command !== 'repl' && command !== 'run')
    throw unknownWord('command', command, ['repl', 'run', ...Object.keys(GROUPS), 'help']);
  // `sqlcdc --help` is everyone's usage; `sqlcdc run --help` run's.
  if (values.help)
    return { command: 'help', topic: positionals[0] ? command : undefined, output: 'table', interactive: false };
  if (values.version) return { command: 'version', output: 'table', interactive: false };
  if (values.workspace === '') throw new UsageError('--workspace needs a folder');

  const output = (values.output ?? 'table') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(output))
    throw new UsageError(`--output must be one of ${OUTPUT_FORMATS.join(', ')}, not '${values.output}'`);

  if (command === 'run') {
    if (rest.length !== 1)
      throw new UsageError(
        rest.length === 0 ? 'run needs a script file' : `run takes one script file, got ${rest.length}`,
      );
    if (values.existing !== undefined) throw new UsageError('--existing is an option of repl, not run');
    if (values.interactive) throw new UsageError('--interactive is an option of repl, not run');
    return { command, script: rest[0], workspace: values.workspace, output, interactive: false };
  }
  if (rest.length > 0) throw new UsageError(`repl takes no arguments, got '${rest[0]}'`);
  if (values.output !== undefined) throw new UsageError('--output is an option of run, not repl');
  // The kernel owns its session: its workspace is the one it was started with.
  if (values.existing !== undefined && values.workspace !== undefined)
    throw new UsageError('--workspace cannot be combined with --existing: the kernel uses its own workspace');
  return {
    command,
    workspace: values.workspace,
    output,
    existing: values.existing,
    interactive: values.interactive === true,
  };
}

/** `--existing`: the REPL as a client of a running Jupyter kernel. Loaded lazily: it pulls in ZeroMQ. */
async function runExisting(connectionFile: string, interactive: boolean): Promise<number> {
  const { runExistingRepl } = await import('../repl/attach/start');
  return runExistingRepl(connectionFile, { interactive });
}

async function main(args: string[]): Promise<number> {
  // `sqlcdc help [GROUP]` is `sqlcdc [GROUP] --help`, as git and npm take it.
  const argv = args[0] === 'help' && args.length <= 2 ? [...args.slice(1), '--help'] : args;
  let inv: Invocation;
  // The usage a bad command line is answered with: the group's own once a group is named, as git does.
  let groupUsage: string | undefined;
  try {
    const group = GROUPS[argv[0]];
    if (group) {
      const commands = await group();
      groupUsage = `Usage:\n${commands.usage}\n`;
      const args = argv.slice(1);
      // `sqlcdc job --help`: the group's own usage, before anything opens a workspace.
      if (args.includes('--help') || args.includes('-h')) {
        process.stdout.write(groupUsage);
        return EXIT.ok;
      }
      return await commands.run(args);
    }
    inv = parseInvocation(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const own = argv[0] === 'run' || argv[0] === 'repl' ? COMMAND_USAGE[argv[0]] : undefined;
    process.stderr.write(`sqlcdc: ${e.message}\n\n${groupUsage ?? own ?? (await usage())}`);
    return EXIT.usage;
  }
  switch (inv.command) {
    case 'help':
      process.stdout.write(inv.topic ? COMMAND_USAGE[inv.topic] : await usage());
      return EXIT.ok;
    case 'version':
      process.stdout.write(`${version()}\n`);
      return EXIT.ok;
    // The interpreter is loaded only for the commands that need it: --help and --version stay instant.
    case 'run': {
      const { runScript } = await import('./run');
      return runScript(inv.script!, { workspace: inv.workspace, output: inv.output });
    }
    case 'repl': {
      if (inv.existing !== undefined) return runExisting(inv.existing, inv.interactive);
      const { startRepl } = await import('../repl/start');
      const failed = await startRepl({ workspace: inv.workspace, interactive: inv.interactive });
      return failed ? EXIT.scriptError : EXIT.ok;
    }
  }
}

// A closed stdout (`sqlcdc run x.sql | head`) is the reader's choice, not an error; any other
// failure to write it (a full disk) is the environment's, said in a line rather than a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(EXIT.ok);
  process.stderr.write(`sqlcdc: cannot write the output: ${e.message}\n`);
  process.exit(EXIT.scriptError);
});

/**
 * Exits once stdout and stderr have written out what they hold. Output to a pipe is written
 * asynchronously past what the pipe takes at once (64 KB): `process.exit` straight after a large
 * write (`job runs --output json | jq`) would cut it off.
 */
function exitAfterOutput(code: number): void {
  let left = 2;
  const written = () => --left === 0 && process.exit(code);
  process.stdout.write('', written);
  process.stderr.write('', written);
}

main(process.argv.slice(2)).then(exitAfterOutput, (e: unknown) => {
  process.stderr.write(`sqlcdc: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
  exitAfterOutput(EXIT.internal);
});
