#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, OUTPUT_FORMATS, type OutputFormat } from './constants';

const USAGE = `Usage:
  sqlcdc [repl] [--workspace DIR] [--existing CONNECTION_FILE]
  sqlcdc run <script.sql> [--workspace DIR] [--output table|json|csv]
  sqlcdc --help | --version

Commands:
  repl      the interactive SQL CDC REPL (the default)
  run       runs a script and prints the final dataset on stdout

Options:
  --workspace DIR         workspace folder (default: $SQLCDC_HOME, else ./.sqlcdc)
  --output FORMAT         run: table (default), json or csv; PRINT output and messages go to stderr
  --existing FILE         repl: attach to a running Jupyter kernel by its connection file
  -h, --help              this help
  -v, --version           the version

Exit codes of run: 0 success, 1 script error (file:line:col on stderr), 2 bad usage, 130 interrupted.
`;

class UsageError extends Error {}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

interface Invocation {
  command: 'help' | 'version' | 'repl' | 'run';
  script?: string;
  workspace?: string;
  output: OutputFormat;
  existing?: string;
}

function parseInvocation(argv: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: 'string' },
        output: { type: 'string' },
        existing: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (e) {
    // parseArgs' messages explain its own API; say what the user did wrong instead.
    const { code, message } = e as NodeJS.ErrnoException;
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) throw new UsageError(`unknown option ${option}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) throw new UsageError(`${option} needs a value`);
    throw new UsageError(message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help', output: 'table' };
  if (values.version) return { command: 'version', output: 'table' };

  const [command = 'repl', ...rest] = positionals;
  if (command !== 'repl' && command !== 'run') throw new UsageError(`unknown command '${command}'`);
  const output = (values.output ?? 'table') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(output)) throw new UsageError(`--output must be one of ${OUTPUT_FORMATS.join(', ')}, not '${values.output}'`);

  if (command === 'run') {
    if (rest.length !== 1) throw new UsageError(rest.length === 0 ? 'run needs a script file' : `run takes one script file, got ${rest.length}`);
    if (values.existing !== undefined) throw new UsageError('--existing is an option of repl, not run');
    return { command, script: rest[0], workspace: values.workspace, output };
  }
  if (rest.length > 0) throw new UsageError(`repl takes no arguments, got '${rest[0]}'`);
  if (values.output !== undefined) throw new UsageError('--output is an option of run, not repl');
  return { command, workspace: values.workspace, output, existing: values.existing };
}

/** `--existing`: the REPL as a client of a running Jupyter kernel. Loaded lazily: it pulls in ZeroMQ. */
async function runExisting(connectionFile: string): Promise<number> {
  const { runExistingRepl } = await import('../repl/attach/start');
  return runExistingRepl(connectionFile);
}

async function main(argv: string[]): Promise<number> {
  let inv: Invocation;
  try {
    inv = parseInvocation(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`sqlcdc: ${e.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  switch (inv.command) {
    case 'help':
      process.stdout.write(USAGE);
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
      if (inv.existing !== undefined) return runExisting(inv.existing);
      const { startRepl } = await import('../repl/start');
      await startRepl({ workspace: inv.workspace });
      return EXIT.ok;
    }
  }
}

// A closed stdout (`sqlcdc run x.sql | head`) is the reader's choice, not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(EXIT.ok);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`sqlcdc: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(EXIT.internal);
  },
);
