import { ScriptError } from '../errors';
import type { Result } from '../results';
import type { Magic } from './magic';

export const limitMagic: Magic = {
  name: 'limit',
  usage: '%limit [N]',
  description: 'shows or sets how many rows a dataset display shows (default 20)',
  run(session, args): Result[] {
    if (args) {
      const n = Number(args);
      if (!Number.isInteger(n) || n < 1) throw new ScriptError(`%limit takes a whole number ≥ 1, not '${args}'`, 'semantic');
      session.displayLimit = n;
    }
    return [{ kind: 'message', text: `display limit: ${session.displayLimit} rows` }];
  },
};

export const resetMagic: Magic = {
  name: 'reset',
  usage: '%reset',
  description: 'starts a new empty pipeline dataset; workspace, connections and variables stay',
  run(session): Result[] {
    session.reset();
    return [{ kind: 'message', text: 'pipeline reset: empty dataset' }];
  },
};

export const workspaceMagic: Magic = {
  name: 'workspace',
  usage: '%workspace',
  description: 'shows the workspace folder (connections, variables, certificates, change logs)',
  run: (session): Result[] => [{ kind: 'message', text: `workspace: ${session.state.workspace}\nworking directory: ${session.state.cwd}` }],
};
