import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { abortOnSigint } from './interrupt';
import { EXIT } from './constants';
import { formatScriptError } from './script-error';
import { parseCommandLine, unknownWord, UsageError, type CommandGroup } from './subcommand';
import { interpreter, openSession, scriptChecker } from './interpreter';
import {
  displayFallback,
  isTriggerKind,
  type JobReport,
  JobStore,
  loadLine,
  newSigningSecret,
  redactScriptLine,
  runRecords,
  settingsInWords,
  settingsOf,
  storedHighWatermark,
  summary,
  TRIGGER_KINDS,
  UPDATE_OPTIONS,
} from '../runtime/admin';
import { counted, fileErrorReason, isScriptError, sessionFolders } from '../runtime/support';
import { type Column, Dataset, renderText, type Value } from '../runtime/tables';

const USAGE = `  sqlcdc job create NAME [--reader FILE.sql] [--writer FILE.sql] [--webhook] [--save-sample] [--signing-secret] [--workspace DIR]
  sqlcdc job list [--output table|json] [--workspace DIR]
  sqlcdc job update NAME ${UPDATE_OPTIONS} [--workspace DIR]
  sqlcdc job show NAME [--output text|json] [--workspace DIR]
  sqlcdc job run|delete NAME [--workspace DIR]
  sqlcdc job runs NAME [--output table|json] [--workspace DIR]
  sqlcdc job trigger NAME --on ${TRIGGER_KINDS.join('|')} --run OTHER [--workspace DIR]`;

const JOB_ACTIONS = ['create', 'list', 'show', 'update', 'run', 'delete', 'trigger', 'runs'];

const string = (name: string): Column => ({ name, type: { base: 'string' } });

/** A text table; a column given by its name alone is text. */
function table(columns: (string | Column)[], rows: Value[][]): string {
  const typed = columns.map((c) => (typeof c === 'string' ? string(c) : c));
  return `${renderText(Dataset.fromRows(typed, rows), { limit: Math.max(rows.length, 1), width: process.stdout.isTTY ? process.stdout.columns : undefined })}\n`;
}

function readScript(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${fileErrorReason(e)}`);
  }
  scriptChecker().checkJobScript(text, { name: file });
  return text;
}

/** A job run's (or replay's) output as `sqlcdc run` shows it: everything on stderr, errors with their place in the script. */
export const stderrReport =
  (store: JobStore): JobReport =>
  (r, from) => {
    switch (r.kind) {
      case 'message':
        process.stderr.write(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
        break;
      case 'warning':
        process.stderr.write(`warning: ${r.text}\n`);
        break;
      case 'error':
        process.stderr.write(
          `${from ? formatScriptError(store.scriptFile(from.job, from.script), r.error, from.source) : r.error.message}\n`,
        );
        break;
      case 'display':
        process.stderr.write(`${displayFallback(r)}\n`);
        break;
      case 'table':
      case 'progress':
        break;
    }
  };

function one(positionals: string[], action: string): string {
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError(`job ${action} needs a job name`);
  if (extra.length > 0) throw new UsageError(`job ${action} takes one job name, got '${extra[0]}' too`);
  return name;
}

/**
 * `job update NAME …`: its `--signing-secret` takes a value (a secret, `-` or `new`), where
 * `job create`'s is a switch, so its options are read apart.
 */
function update(args: string[]): number {
  const { values, positionals } = parseCommandLine(args, {
    workspace: { type: 'string' },
    webhook: { type: 'boolean' },
    'no-webhook': { type: 'boolean' },
    'save-sample': { type: 'boolean' },
    'no-save-sample': { type: 'boolean' },
    'signing-secret': { type: 'string' },
    'no-signing-secret': { type: 'boolean' },
  });
  const name = one(positionals, 'update');
  const asked = settingsOf(
    {
      webhook: values.webhook === true,
      noWebhook: values['no-webhook'] === true,
      saveSample: values['save-sample'] === true,
      noSaveSample: values['no-save-sample'] === true,
      signingSecret: values['signing-secret'],
      noSigningSecret: values['no-signing-secret'] === true,
    },
    // `-`: the first line of stdin, so the secret is in neither the shell's history nor the process list.
    () => readFileSync(0, 'utf8').split('\n')[0],
  );
  if ('problem' in asked) throw new UsageError(asked.problem);
  const store = new JobStore(sessionFolders({ workspace: values.workspace }).workspace, openSession);
  const job = store.update(name, asked.settings);
  process.stdout.write(`job ${job.name}: ${settingsInWords(job)}\n`);
  // Shown once, like an access key: the workspace keeps it sealed.
  if (asked.made) process.stdout.write(`signing secret ${asked.made} (shown once)\n`);
  return EXIT.ok;
}

/**
 * `job create`'s --signing-secret is a switch: a secret written after it (as update takes one) is
 * refused without being echoed, which would put it in a terminal's scrollback or a CI log.
 */
const CREATE_SECRET_GIVEN =
  '--signing-secret takes no value with job create (it makes a secret and shows it once); give your own with: job update NAME --signing-secret -';

async function run(args: string[]): Promise<number> {
  if (args[0] === 'update') return update(args.slice(1));
  if (args[0] === 'create' && args.some((a) => a.startsWith('--signing-secret=')))
    throw new UsageError(CREATE_SECRET_GIVEN);
  const { values, positionals } = parseCommandLine(args, {
    workspace: { type: 'string' },
    reader: { type: 'string' },
    writer: { type: 'string' },
    webhook: { type: 'boolean' },
    'save-sample': { type: 'boolean' },
    'signing-secret': { type: 'boolean' },
    output: { type: 'string' },
    on: { type: 'string' },
    run: { type: 'string' },
  });
  const [action, ...rest] = positionals;
  const store = new JobStore(sessionFolders({ workspace: values.workspace }).workspace, openSession);
  const out = (text: string) => process.stdout.write(text);
  switch (action) {
    case 'create': {
      if (values['signing-secret'] && rest.length > 1) throw new UsageError(CREATE_SECRET_GIVEN);
      const name = one(rest, 'create');
      const signingSecret = values['signing-secret'] ? newSigningSecret(randomBytes(24)) : undefined;
      const job = store.create({
        name,
        reader: values.reader === undefined ? undefined : readScript(values.reader),
        writer: values.writer === undefined ? undefined : readScript(values.writer),
        webhook: values.webhook === true,
        saveSample: values['save-sample'] === true,
        signingSecret,
      });
      out(job.kind === 'direct' ? `reader ${job.guid}\nwriter ${job.writerGuid}\n` : `${job.guid}\n`);
      // Shown once, like an access key: the workspace keeps it sealed.
      if (signingSecret) out(`signing secret ${signingSecret}\n`);
      return EXIT.ok;
    }
    case 'list': {
      if (rest.length > 0) throw new UsageError(`job list takes no arguments, got '${rest[0]}'`);
      const jobs = store.list().map(summary);
      const output = values.output ?? 'table';
      if (output === 'json') out(`${JSON.stringify(jobs)}\n`);
      else if (output === 'table')
        out(
          table(
            ['name', 'kind', 'guid', 'webhook', 'triggers'],
            jobs.map((j) => [
              j.name,
              j.kind,
              j.guid,
              j.webhook ? 'yes' : 'no',
              j.triggers.map((t) => `${t.on} → ${t.run}`).join(', '),
            ]),
          ),
        );
      else throw new UsageError(`--output of job list must be table or json, not '${output}'`);
      return EXIT.ok;
    }
    case 'show': {
      const output = values.output ?? 'text';
      if (output !== 'text' && output !== 'json')
        throw new UsageError(`--output of job show must be text or json, not '${output}'`);
      const job = store.get(one(rest, 'show'));
      const s = summary(job);
      const hwm = storedHighWatermark(store.workspace, job.name);
      const loads = await store.loads(job.name, process.cwd());
      // The scripts as written, but a connection magic in them shows no secret.
      const script = (part: 'reader' | 'writer') =>
        s[part] === null ? null : store.script(job.name, part).trimEnd().split('\n').map(redactScriptLine).join('\n');
      if (output === 'json') {
        out(
          `${JSON.stringify({
            ...s,
            saveSample: job.saveSample,
            signingSecret: job.signingSecret !== undefined,
            highWatermark: hwm ?? null,
            loads,
            folder: store.jobFolder(job.name),
            scripts: { reader: script('reader'), writer: script('writer') },
          })}\n`,
        );
        return EXIT.ok;
      }
      const lines = [
        `job            ${job.name}`,
        `kind           ${job.kind}`,
        `guid           ${job.guid}`,
        ...(job.writerGuid ? [`writer guid    ${job.writerGuid}`] : []),
        `webhook        ${job.webhook ? 'enabled' : 'not enabled'}`,
        `save sample    ${job.saveSample ? 'yes' : 'no'}`,
        `signing secret ${job.signingSecret ? 'set' : 'none'}`,
        `triggers       ${s.triggers.map((t) => `${t.on} → ${t.run}`).join(', ') || 'none'}`,
        `high watermark ${hwm ? `${hwm.value} (${hwm.type})` : 'none'}`,
        ...loads.map((l) => `load           ${loadLine(l, loads.length > 1)}`),
        `folder         ${store.jobFolder(job.name)}`,
      ];
      for (const part of ['reader', 'writer'] as const) {
        const text = script(part);
        if (text !== null) lines.push('', `${part}.sql:`, text);
      }
      out(`${lines.join('\n')}\n`);
      return EXIT.ok;
    }
    case 'run': {
      const name = one(rest, 'run');
      store.get(name);
      const controller = new AbortController();
      const stopListening = abortOnSigint(controller);
      let record;
      try {
        record = await interpreter().runJob(store, name, {
          by: 'run',
          report: stderrReport(store),
          signal: controller.signal,
        });
      } finally {
        await stopListening();
      }
      if (controller.signal.aborted) return EXIT.interrupted;
      process.stderr.write(`job ${name}: ${record.outcome}, ${counted(record.rows, 'row')} (run ${record.id})\n`);
      return record.outcome === 'success' ? EXIT.ok : EXIT.scriptError;
    }
    case 'update':
      // Options before the action (`job --workspace ws update …`): read again as update's.
      return update(args.filter((_, i) => i !== args.indexOf('update')));
    case 'delete':
      store.delete(one(rest, 'delete'));
      return EXIT.ok;
    case 'trigger': {
      const name = one(rest, 'trigger');
      if (!values.on) throw new UsageError(`job trigger needs --on ${TRIGGER_KINDS.join('|')}`);
      if (!isTriggerKind(values.on)) throw unknownWord('trigger kind', values.on, TRIGGER_KINDS);
      if (!values.run) throw new UsageError('job trigger needs --run OTHER (the job to run)');
      if (values.run === name) throw new UsageError('a job cannot trigger itself');
      store.addTrigger(name, { on: values.on, run: values.run });
      return EXIT.ok;
    }
    case 'runs': {
      const output = values.output ?? 'table';
      if (output !== 'table' && output !== 'json')
        throw new UsageError(`--output of job runs must be table or json, not '${output}'`);
      const runs = runRecords(store, store.get(one(rest, 'runs')).name);
      if (output === 'json') out(`${JSON.stringify(runs)}\n`);
      else
        out(
          table(
            ['id', 'by', 'start', 'end', { name: 'rows', type: { base: 'int' } }, 'outcome', 'error'],
            runs.map((r) => [r.id, r.by, r.start, r.end ?? null, r.rows, r.outcome, r.error ?? null]),
          ),
        );
      return EXIT.ok;
    }
    default:
      if (action === undefined) throw new UsageError(`job needs an action (${JOB_ACTIONS.join(', ')})`);
      throw unknownWord('job action', action, JOB_ACTIONS);
  }
}

/** `sqlcdc job …` (docs/jobs.md). */
export const jobCommands: CommandGroup = {
  usage: USAGE,
  async run(args) {
    try {
      return await run(args);
    } catch (e) {
      if (e instanceof UsageError || !isScriptError(e)) throw e;
      // An error in a script file given (job create --writer FILE) is placed in it, as `run` places one.
      const { script } = e;
      process.stderr.write(script ? `${formatScriptError(script.name, e, script.text)}\n` : `sqlcdc: ${e.message}\n`);
      return EXIT.scriptError;
    }
  },
};
