import { ArgumentError } from './args';
import { PIPELINE_NAME, PIPELINE_NAME_RULE } from '../pipeline-name';
import type { Result } from '../results';
import type { Magic } from './magic';
import { counted } from '../util/words';

export const limitMagic: Magic = {
  name: 'limit',
  usage: '%limit [N]',
  description: 'shows or sets how many rows a dataset display shows (default 20)',
  run(session, args): Result[] {
    if (args) {
      const n = Number(args);
      if (!Number.isInteger(n) || n < 1)
        throw new ArgumentError(`%limit takes a whole number ≥ 1, not '${args}'`, args);
      session.displayLimit = n;
    }
    return [{ kind: 'message', text: `display limit: ${counted(session.displayLimit, 'row')}` }];
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

export const pipelineMagic: Magic = {
  name: 'pipeline',
  usage: '%pipeline [NAME]',
  description: 'shows or sets the pipeline name (CDC state and change log names are kept per pipeline)',
  run(session, args): Result[] {
    if (args) {
      if (!PIPELINE_NAME.test(args)) {
        throw new ArgumentError(`a pipeline name is ${PIPELINE_NAME_RULE} (it names files), not '${args}'`, args);
      }
      session.pipeline = args;
    }
    return [{ kind: 'message', text: `pipeline: ${session.pipeline}` }];
  },
};

export const workspaceMagic: Magic = {
  name: 'workspace',
  usage: '%workspace',
  description: 'shows the workspace folder (connections, variables, certificates, change logs)',
  run: (session): Result[] => [
    { kind: 'message', text: `workspace: ${session.workspace}\nworking directory: ${session.cwd}` },
  ],
};
