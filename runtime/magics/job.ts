import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { didYouMean } from '../util/suggest';
import { fileErrorReason } from '../util/file-error';
import { ScriptError } from '../errors';
import { isTriggerKind, TRIGGER_KINDS } from '../jobs/job';
import { runJob, triggeredFailure, type JobReport } from '../jobs/runner';
import { checkJobScript } from '../jobs/script-check';
import { JobStore, settingsInWords, summary } from '../jobs/store';
import { settingsOf, UPDATE_OPTIONS } from '../jobs/update';
import type { Result } from '../results';
import { newSigningSecret } from '../webhook/signature';
import { ArgumentError, atMagicArgument, parseFlags, splitArgs, type FlagSpec } from './args';
import { listing } from './listing';
import type { Magic, MagicHost } from './magic';
import { AsyncQueue } from '../util/async-queue';
import { counted } from '../util/words';

const SETTINGS = '[--webhook] [--save-sample] [--signing-secret]';
const USAGE = `%job create NAME [--reader F.sql] [--writer F.sql] ${SETTINGS} | list | run NAME | update NAME ${UPDATE_OPTIONS} | trigger NAME --on ${TRIGGER_KINDS.join('|')} --run OTHER`;
const CELL_USAGE = `%%job NAME reader|writer ${SETTINGS}, then the script`;
const SETTING_FLAGS = { webhook: 'switch', 'save-sample': 'switch', 'signing-secret': 'switch' } as const;
const OPTIONS = {
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
const PARTS = ['reader', 'writer'] as const;
const CELL_ARGS = { positional: [undefined, PARTS], options: SETTING_FLAGS };

/** The job settings the flags ask for; a signing secret is made here, to be shown once. */
function settings(flags: Map<string, string[]>) {
  return {
    webhook: flags.has('webhook'),
    saveSample: flags.has('save-sample'),
    signingSecret: flags.has('signing-secret') ? newSigningSecret(randomBytes(24)) : undefined,
  };
}

function shownOnce(signingSecret: string | undefined): string[] {
  return signingSecret ? [`signing secret ${signingSecret} (shown once)`] : [];
}

const isPart = (word: string | undefined): word is (typeof PARTS)[number] => PARTS.some((p) => p === word);

function one(words: string[], action: string): string {
  if (words.length > 1) throw new ArgumentError(`%job ${action} needs one job name; usage: ${USAGE}`, words[1]);
  if (words.length !== 1) throw new ScriptError(`%job ${action} needs one job name; usage: ${USAGE}`, 'semantic');
  return words[0];
}

function create(host: MagicHost, store: JobStore, words: string[]): Result[] {
  const { positional, flags } = parseFlags(words, OPTIONS.create, USAGE);
  const script = (flag: string) => {
    const file = flags.get(flag)?.[0];
    if (file === undefined) return undefined;
    let text: string;
    try {
      text = readFileSync(resolve(host.cwd, file), 'utf8').replace(/^\uFEFF/, '');
    } catch (e) {
      throw new ArgumentError(`cannot read ${file}: ${fileErrorReason(e)}`, file, 'runtime');
    }
    checkJobScript(text, { name: file });
    return text;
  };
  const asked = settings(flags);
  const job = store.create({
    name: one(positional, 'create'),
    reader: script('reader'),
    writer: script('writer'),
    ...asked,
  });
  const lines = [
    job.kind === 'direct'
      ? `job ${job.name}: reader ${job.guid}, writer ${job.writerGuid}`
      : `job ${job.name} (${job.kind}): ${job.guid}`,
  ];
  return [{ kind: 'message', text: [...lines, ...shownOnce(asked.signingSecret)].join('\n') }];
}

/** `%job update NAME …`: as `sqlcdc job update`, but a notebook has no stdin to read a secret from. */
function update(store: JobStore, words: string[]): Result[] {
  const { positional, flags } = parseFlags(words, OPTIONS.update, USAGE);
  const asked = settingsOf(
    {
      webhook: flags.has('webhook'),
      noWebhook: flags.has('no-webhook'),
      saveSample: flags.has('save-sample'),
      noSaveSample: flags.has('no-save-sample'),
      signingSecret: flags.get('signing-secret')?.[0],
      noSigningSecret: flags.has('no-signing-secret'),
    },
    () => {
      throw new ArgumentError(
        "%job update: a notebook has no stdin to read a secret from; give it, or 'new' (use sqlcdc job update … --signing-secret - in a terminal)",
        '-',
      );
    },
  );
  if ('problem' in asked) throw new ScriptError(`%job update: ${asked.problem}; usage: ${USAGE}`, 'semantic');
  const name = one(positional, 'update');
  const job = atMagicArgument(name, () => store.update(name, asked.settings));
  return [{ kind: 'message', text: [`job ${job.name}: ${settingsInWords(job)}`, ...shownOnce(asked.made)].join('\n') }];
}

/** The job's output (messages, warnings, a push's progress) shows in the cell as it comes, as `sqlcdc job run` prints it. */
async function* run(
  host: MagicHost,
  store: JobStore,
  words: string[],
  signal: AbortSignal | undefined,
): AsyncGenerator<Result> {
  const name = one(words, 'run');
  atMagicArgument(name, () => store.get(name));
  const out = new AsyncQueue<Result>();
  let failed: ScriptError | undefined;
  const report: JobReport = (r, from) => {
    if (r.kind !== 'error') {
      if (r.kind !== 'table') out.push(r);
    } else if (!from || from.job === name)
      // Its position is in the job's script: shown there, named, rather than against the cell.
      failed ??= from ? r.error.inScript(`${from.script}.sql of job ${from.job}`, from.source) : r.error;
    else out.push(triggeredFailure(store, name, from, r.error));
  };
  const running = runJob(store, name, { by: 'run', cwd: host.cwd, report, signal }).finally(() => out.close());
  // Awaited once the output is shown; until then a failure must not count as unhandled.
  running.catch(() => undefined);
  yield* out;
  const record = await running;
  // The job's own error is the cell's error; the rest of its output shows before it.
  if (failed) throw failed;
  yield { kind: 'message', text: `job ${name}: ${record.outcome}, ${counted(record.rows, 'row')} (run ${record.id})` };
}

/** %job: the jobs of the workspace from a notebook, as `sqlcdc job` (docs/jobs.md). */
export const jobMagic: Magic = {
  name: 'job',
  usage: USAGE,
  description: `jobs of the workspace: create, list, run, update (webhook, signing secret, sample on or off), trigger (as sqlcdc job); a cell starting with %%job NAME reader|writer ${SETTINGS} saves the rest of the cell as that part of the job`,
  words: ['create', 'list', 'run', 'update', 'trigger'],
  options: OPTIONS,
  cellArgs: CELL_ARGS,
  // `update … --signing-secret whsec_…` holds one, and so do `create` and `%%job` when a secret is given by mistake.
  secretArgs: { options: ['signing-secret'] },
  /**
   * `%%job NAME reader|writer [settings]`: the cell's script becomes that part of the job (created as a
   * writer or reader when new); the settings of `%job create` switch on, so a notebook alone can make
   * the job `%webhook start --job` serves.
   */
  cell(host, args, body, cell): Result[] {
    const { positional, flags } = parseFlags(splitArgs(args), CELL_ARGS.options, CELL_USAGE);
    const [name, part, ...extra] = positional;
    if (!name || !isPart(part) || extra.length > 0) throw new ScriptError(`usage: ${CELL_USAGE}`, 'semantic');
    if (!body.trim()) throw new ScriptError(`%%job ${name} ${part}: the cell holds no script`, 'semantic');
    checkJobScript(cell.text, { from: cell.bodyOffset });
    const store = new JobStore(host.workspace, host.openSession);
    const asked = settings(flags);
    const { job, created } = store.saveScript(name, part, body, asked);
    const said = created
      ? `job ${name} (${job.kind}) created with this ${part}: ${job.guid}`
      : `job ${name}: ${part} saved (${job.kind})`;
    return [{ kind: 'message', text: [said, ...shownOnce(asked.signingSecret)].join('\n') }];
  },
  run(host, args, line) {
    const [action, ...words] = splitArgs(args);
    const store = new JobStore(host.workspace, host.openSession);
    switch (action) {
      case 'create':
        return create(host, store, words);
      case 'list':
        return [
          listing(
            ['name', 'kind', 'guid', 'webhook', 'triggers'],
            store
              .list()
              .map(summary)
              .map((j) => [
                j.name,
                j.kind,
                j.guid,
                j.webhook ? 'yes' : 'no',
                j.triggers.map((t) => `${t.on} → ${t.run}`).join(', '),
              ]),
            'Jobs',
          ),
        ];
      case 'run':
        return run(host, store, words, line.signal);
      case 'update':
        return update(store, words);
      case 'trigger': {
        const { positional, flags } = parseFlags(words, OPTIONS.trigger, USAGE);
        const name = one(positional, 'trigger');
        const on = flags.get('on')?.[0];
        const other = flags.get('run')?.[0];
        if (!on || !other) throw new ScriptError(`usage: ${USAGE}`, 'semantic');
        if (!isTriggerKind(on))
          throw new ArgumentError(
            `--on ${on}: a trigger fires on ${TRIGGER_KINDS.join(', ')}${didYouMean(on, TRIGGER_KINDS)}`,
            on,
          );
        store.addTrigger(name, { on, run: other });
        return [{ kind: 'message', text: `job ${name}: on ${on}, run ${other}` }];
      }
      default:
        if (action === undefined) throw new ScriptError(`usage: ${USAGE}`, 'semantic');
        throw new ArgumentError(`unknown subcommand '${action}'; usage: ${USAGE}`, action);
    }
  },
};
