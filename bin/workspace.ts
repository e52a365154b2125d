import { rotateWorkspaceKey } from '../runtime/admin';
import { counted, sessionFolders, toScriptError } from '../runtime/support';
import { EXIT } from './constants';
import { parseCommandLine, unknownWord, UsageError, type CommandGroup } from './subcommand';

/** `sqlcdc workspace rotate-key`: reseals every secret of the workspace under a new key. */
export const workspaceCommands: CommandGroup = {
  usage: '  sqlcdc workspace rotate-key [--workspace DIR]',
  async run(args) {
    const { values, positionals } = parseCommandLine(args, { workspace: { type: 'string' } });
    const command = positionals.join(' ');
    if (command === '') throw new UsageError('workspace needs a command (rotate-key)');
    if (command !== 'rotate-key') throw unknownWord('workspace command', command, ['rotate-key']);
    const { workspace } = sessionFolders({ workspace: values.workspace });
    try {
      const r = rotateWorkspaceKey(workspace);
      process.stdout.write(
        `workspace ${workspace}: ${counted(r.variables, 'encrypted variable')}, ${counted(r.connections, 'connection')} and ${counted(r.jobs, 'job signing secret')} resealed; the key is now in ${r.keySource}\n`,
      );
      return EXIT.ok;
    } catch (e) {
      process.stderr.write(`sqlcdc: ${toScriptError(e).message}\n`);
      return EXIT.scriptError;
    }
  },
};
