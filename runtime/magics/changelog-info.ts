import type { FlagSpec } from './args';
import type { MagicInfo } from './magic';

export const USAGE = '%changelog list [FOLDER|PIPELINE] | %changelog show FILE|NAME [--check-signature]';
export const OPTIONS = { show: { 'check-signature': 'switch' } } as const satisfies Record<string, FlagSpec>;

/**
 * %changelog: `sqlcdc changelog list|show` in a cell (docs/changelog.md, "Inspecting and replaying"). Without
 * a folder it looks where CAPTURE writes without PATH, the pipeline's workspace store (a name that is
 * not a folder: that pipeline's or job's store); `show NAME` (a
 * log name, no extension) shows the newest log of that name, since its execution id changes every run.
 */
export const changelogMagic: MagicInfo = {
  name: 'changelog',
  usage: USAGE,
  description: "lists a folder's change logs (default: the pipeline's store) or shows one log's header and first rows",
  words: ['list', 'show'],
  options: OPTIONS,
};
