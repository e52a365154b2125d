import { EXIT } from './constants';
import { parseCommandLine, unknownWord, UsageError, type CommandGroup } from './subcommand';
import { AccessKeys } from '../runtime/admin';
import { isScriptError, sessionFolders } from '../runtime/support';
import { Dataset, renderText } from '../runtime/tables';

/** `sqlcdc webhook key new|list|revoke`: the listener's access keys (docs/webhook.md). */
async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(args, {
    workspace: { type: 'string' },
    name: { type: 'string' },
    output: { type: 'string' },
  });
  const [group, action, ...rest] = positionals;
  if (group === undefined) throw new UsageError('webhook needs key new|list|revoke');
  if (group !== 'key') throw unknownWord('webhook command', group, ['key']);
  const keys = new AccessKeys(sessionFolders({ workspace: values.workspace }).workspace);
  switch (action) {
    case 'new': {
      if (rest.length > 0) throw new UsageError(`webhook key new takes no arguments (--name N), got '${rest[0]}'`);
      // The key alone on stdout, so `KEY=$(sqlcdc webhook key new)` works; it is never shown again.
      process.stdout.write(`${keys.create(values.name).key}\n`);
      return EXIT.ok;
    }
    case 'list': {
      const output = values.output ?? 'table';
      if (output !== 'table' && output !== 'json')
        throw new UsageError(`--output of webhook key list must be table or json, not '${output}'`);
      const list = keys.list().map(({ id, name, created }) => ({ id, name, created }));
      if (output === 'json') process.stdout.write(`${JSON.stringify(list)}\n`);
      else {
        const columns = ['id', 'name', 'created'].map((name) => ({ name, type: { base: 'string' as const } }));
        process.stdout.write(
          `${renderText(
            Dataset.fromRows(
              columns,
              list.map((k) => [k.id, k.name, k.created]),
            ),
            { limit: Math.max(list.length, 1) },
          )}\n`,
        );
      }
      return EXIT.ok;
    }
    case 'revoke': {
      if (rest.length !== 1) throw new UsageError('webhook key revoke needs the id or name of one key');
      const gone = keys.revoke(rest[0]);
      process.stderr.write(`access key '${gone.name}' (${gone.id}) revoked\n`);
      return EXIT.ok;
    }
    default:
      if (action === undefined) throw new UsageError('webhook key needs new, list or revoke');
      throw unknownWord('webhook key action', action, ['new', 'list', 'revoke']);
  }
}

export const webhookCommands: CommandGroup = {
  usage: '  sqlcdc webhook key new [--name N] | list [--output json] | revoke ID|NAME  [--workspace DIR]',
  async run(args) {
    try {
      return await run(args);
    } catch (e) {
      if (!isScriptError(e)) throw e;
      process.stderr.write(`sqlcdc: ${e.message}\n`);
      return EXIT.scriptError;
    }
  },
};
