import { TRIGGER_KINDS } from '../jobs/job';
import { updateOptions } from '../jobs/update';
import type { FlagSpec } from './args';
import type { MagicInfo } from './magic';

export const SETTINGS = '[--webhook] [--save-sample] [--signing-secret]';
// A notebook has no stdin: `%job update … --signing-secret -` is refused (job.ts), so its usage does not offer it.
export const USAGE = `%job create NAME [--reader F.sql] [--writer F.sql] ${SETTINGS} | list | run NAME | update NAME ${updateOptions(false)} | trigger NAME --on ${TRIGGER_KINDS.join('|')} --run OTHER`;
export const CELL_USAGE = `%%job NAME reader|writer ${SETTINGS}, then the script`;
const SETTING_FLAGS = { webhook: 'switch', 'save-sample': 'switch', 'signing-secret': 'switch' } as const;
export const OPTIONS = {
  create: { reader: 'value', writer: 'value', ...SETTING_FLAGS },
  update: {
    webhook: 'switch',
    'no-webhook': 'switch',
    'save-sample': 'switch',
    'no-save-sample': 'switch',
    'signing-secret': 'value',
    'no-signing-secret': 'switch',
  },
  trigger: { on: 'value', run: 'value' },
} as const satisfies Record<string, FlagSpec>;
export const PARTS = ['reader', 'writer'] as const;
export const CELL_ARGS = { positional: [undefined, PARTS], options: SETTING_FLAGS };

/** %job: the jobs of the workspace from a notebook, as `sqlcdc job` (docs/jobs.md). */
export const jobMagic: MagicInfo = {
  name: 'job',
  usage: USAGE,
  description: `jobs of the workspace: create, list, run, update (webhook, signing secret, sample on or off), trigger (as sqlcdc job); a cell starting with %%job NAME reader|writer ${SETTINGS} saves the rest of the cell as that part of the job`,
  words: ['create', 'list', 'run', 'update', 'trigger'],
  options: OPTIONS,
  cellArgs: CELL_ARGS,
  // `update … --signing-secret whsec_…` holds one, and so do `create` and `%%job` when a secret is given by mistake.
  secretArgs: { options: ['signing-secret'] },
};
