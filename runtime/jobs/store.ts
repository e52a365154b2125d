import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptError } from '../errors';
import { isLockEntry, withFileLock } from '../workspace/file-lock';
import { writeFileAtomic } from '../workspace/files';
import { readJsonFile } from '../workspace/json-file';
import { WorkspaceKey } from '../workspace/workspace-key';
import {
  checkJobName,
  hasReader,
  hasWriter,
  kindOf,
  newGuid,
  jobsFolder,
  normalizeGuid,
  runsFile,
  secretLabel,
  type JobDefinition,
  type Trigger,
} from './job';
import { JsonLines } from '../util/json-lines';
import { didYouMean } from '../util/suggest';
import type { LoadShown } from './load-shown';
import type { RunLine } from './run-log';
import type { OpenSession } from './sessions';

export interface CreateJob {
  name: string;
  /** Script texts. */
  reader?: string;
  writer?: string;
  webhook: boolean;
  saveSample: boolean;
  /** A Standard Webhooks secret (`whsec_…`) to verify calls with. */
  signingSecret?: string;
}

/** What `job list --output json` shows of a job (its signing secret never). */
export interface JobSummary {
  name: string;
  kind: string;
  guid: string;
  /** The reader's guid (a direct job's is `guid`), or null without a reader. */
  reader: string | null;
  writer: string | null;
  webhook: boolean;
  triggers: Trigger[];
}

export type Script = 'reader' | 'writer';

/** What `job update` changes of a job's settings; what is absent stays. */
export interface JobSettings {
  webhook?: boolean;
  saveSample?: boolean;
  /** A Standard Webhooks secret (`whsec_…`) to require signatures with, or null to stop requiring them. */
  signingSecret?: string | null;
}

/**
 * A job's scripts are kept as written, where a connection's password or a key may be (`job show`
 * masks them): readable by their owner only, as the workspace's other files holding secrets.
 */
const SCRIPT_MODE = 0o600;
/** How long a job's stamp is trusted before its files are stated again (`JobStore.current`). */
const STAMP_FRESH_MS = 20;

/** A job's definition and the stamp of the files it was read from (`JobStore.stamp`). */
export interface CurrentJob {
  job: JobDefinition;
  stamp: string;
}

/**
 * The job definitions of a workspace, `<workspace>/jobs/<name>/job.json`: what reading, saving and
 * resealing them needs, without running anything (`sqlcdc workspace rotate-key` uses it alone).
 */
export class JobDefinitions {
  readonly folder: string;

  constructor(readonly workspace: string) {
    this.folder = jobsFolder(workspace);
  }

  jobFolder(name: string): string {
    return join(this.folder, checkJobName(name));
  }

  exists(name: string): boolean {
    return existsSync(join(this.jobFolder(name), 'job.json'));
  }

  save(job: JobDefinition): void {
    writeFileAtomic(this.definitionFile(job.name), `${JSON.stringify(job, null, 2)}\n`);
  }

  protected definitionFile(name: string): string {
    return join(this.jobFolder(name), 'job.json');
  }

  get(name: string): JobDefinition {
    const file = join(this.jobFolder(name), 'job.json');
    try {
      return readJsonFile<JobDefinition>(file, 'object');
    } catch (e) {
      // Missing, or deleted by another process between a look and this read (outside job.json's lock).
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new ScriptError(`no job '${name}' in ${this.folder}${didYouMean(name, this.names())}`, 'semantic');
      throw e;
    }
  }

  list(): JobDefinition[] {
    return this.names().map((n) => this.get(n));
  }

  /** The names of the workspace's jobs, sorted. */
  protected names(): string[] {
    if (!existsSync(this.folder)) return [];
    return readdirSync(this.folder)
      .filter((n) => existsSync(join(this.folder, n, 'job.json')))
      .sort();
  }

  signingSecret(job: JobDefinition): string | undefined {
    return (
      job.signingSecret &&
      new WorkspaceKey(this.workspace).open(
        secretLabel(job.name),
        job.signingSecret,
        `the signing secret of job ${job.name}`,
      )
    );
  }

  /**
   * Seals every job's signing secret again under `next` (workspace rotate-key), each job.json
   * replaced atomically; returns how many. A secret already sealed under `next` by a rotation that
   * stopped half-way still opens (WorkspaceKey falls back to secret.key.next).
   */
  resealWith(next: WorkspaceKey): number {
    let n = 0;
    for (const name of this.names()) {
      // Under job.json's lock, read again there: a `job update` made meanwhile is kept.
      const resealed = withFileLock(this.definitionFile(name), () => {
        const job = this.get(name);
        const secret = this.signingSecret(job);
        if (secret === undefined) return false;
        this.save({ ...job, signingSecret: next.seal(secretLabel(job.name), secret) });
        return true;
      });
      if (resealed) n++;
    }
    return n;
  }
}

/**
 * Whether a script's first statement may be a LOAD, from its text: after its leading magic lines,
 * blank lines and comments, the word LOAD. A guess for `loads`, which the parser then settles.
 */
function startsWithLoad(source: string): boolean {
  const body = source.replace(/^(?:\s+|--[^\n]*|\/\*[\s\S]*?\*\/|%[^\n]*)*/, '');
  return /^load\b/i.test(body);
}

/**
 * The jobs of a workspace: `<workspace>/jobs/<name>/` holds job.json, reader.sql and/or writer.sql
 * (each written atomically), runs.jsonl (run records), and sample.txt when the job keeps the last
 * webhook payload.
 */
export class JobStore extends JobDefinitions {
  private readonly runLogs = new Map<string, JsonLines<RunLine>>();
  /** guid → job name, checked against the file on each use so a deleted or changed job is seen. */
  private byGuidCache = new Map<string, string>();
  /** Definitions `current` read, by job name. */
  private readonly definitions = new Map<string, { current: CurrentJob; stampedAt: number }>();

  constructor(
    workspace: string,
    /** How a run of a job gets its session (jobs/sessions.ts). */
    readonly openSession: OpenSession,
  ) {
    super(workspace);
  }

  /** Saved here, a job is seen at once by this store's next `current`. */
  override save(job: JobDefinition): void {
    super.save(job);
    this.definitions.delete(job.name);
  }

  scriptFile(name: string, script: Script): string {
    return join(this.jobFolder(name), `${script}.sql`);
  }

  /**
   * Makes job `request.name`; refused when it exists. Under job.json's lock, so of several processes
   * creating one name at once exactly one makes it, and the others write nothing.
   */
  create(request: CreateJob): JobDefinition {
    const name = checkJobName(request.name);
    const kind = kindOf(request.reader !== undefined, request.writer !== undefined);
    if (request.webhook) checkWebhook(kind);
    // Sealed before the lock is taken: the lock is held only for reading and writing the job's files.
    const signingSecret = request.signingSecret ? this.seal(name, request.signingSecret) : undefined;
    return withFileLock(this.definitionFile(name), () => {
      if (this.exists(name))
        throw new ScriptError(`job '${name}' already exists (sqlcdc job delete ${name} first)`, 'semantic');
      const job: JobDefinition = {
        name,
        kind,
        guid: newGuid(),
        ...(kind === 'direct' ? { writerGuid: newGuid() } : {}),
        webhook: request.webhook,
        saveSample: request.saveSample,
        triggers: [],
        ...(signingSecret ? { signingSecret } : {}),
        created: new Date().toISOString(),
      };
      // Scripts first: a job.json is the job's existence, so it only appears once its scripts are in place.
      if (request.reader !== undefined) writeFileAtomic(this.scriptFile(name, 'reader'), request.reader, SCRIPT_MODE);
      if (request.writer !== undefined) writeFileAtomic(this.scriptFile(name, 'writer'), request.writer, SCRIPT_MODE);
      this.save(job);
      return job;
    });
  }

  /** Adds `trigger` to job `name`, once; several processes adding triggers at once each keep theirs. */
  addTrigger(name: string, trigger: Trigger): JobDefinition {
    this.get(name);
    this.get(trigger.run);
    if (trigger.run === name) throw new ScriptError('a job cannot trigger itself', 'semantic');
    return withFileLock(this.definitionFile(name), () => {
      const job = this.get(name);
      if (!job.triggers.some((t) => t.on === trigger.on && t.run === trigger.run)) job.triggers.push(trigger);
      this.save(job);
      return job;
    });
  }

  /** Changes a job's settings (`job update`), under job.json's lock as every change of it; its guids stay. */
  update(name: string, settings: JobSettings): JobDefinition {
    // Refused before the lock, which would make a folder for a job that does not exist.
    this.get(name);
    const signingSecret = settings.signingSecret && this.seal(name, settings.signingSecret);
    return withFileLock(this.definitionFile(name), () => {
      const job = this.get(name);
      if (settings.webhook) checkWebhook(job.kind);
      if (settings.webhook !== undefined) job.webhook = settings.webhook;
      if (settings.saveSample !== undefined) job.saveSample = settings.saveSample;
      if (signingSecret) job.signingSecret = signingSecret;
      else if (settings.signingSecret === null) delete job.signingSecret;
      this.save(job);
      return job;
    });
  }

  private seal(name: string, signingSecret: string): string {
    return new WorkspaceKey(this.workspace).seal(secretLabel(name), signingSecret);
  }

  /**
   * Saves a script as a job's reader or writer, creating the job (a reader or a writer) when it does
   * not exist. A job given its other part becomes direct: its guid stays the one webhook calls use (a
   * direct job's reader guid, §4.1), and its writer gets a guid of its own. `settings` of `create`
   * switch on (`%%job NAME writer --webhook`); a signing secret replaces the one it had. Under
   * job.json's lock, as `job trigger` changes it: neither loses the other's change.
   */
  saveScript(
    name: string,
    script: Script,
    text: string,
    settings: Omit<CreateJob, 'name' | 'reader' | 'writer'>,
  ): { job: JobDefinition; created: boolean } {
    for (;;) {
      if (!this.exists(name)) {
        try {
          return { job: this.create({ name, [script]: text, ...settings }), created: true };
        } catch (e) {
          // Created by another process meanwhile: the script is saved into that job.
          if (this.exists(name)) continue;
          throw e;
        }
      }
      const signingSecret = settings.signingSecret && this.seal(name, settings.signingSecret);
      const job = withFileLock(this.definitionFile(name), () => {
        if (!this.exists(name)) return undefined;
        const job = this.get(name);
        const kind = kindOf(hasReader(job) || script === 'reader', hasWriter(job) || script === 'writer');
        if (settings.webhook) checkWebhook(kind);
        writeFileAtomic(this.scriptFile(name, script), text, SCRIPT_MODE);
        this.definitions.delete(name);
        const changed = kind !== job.kind || settings.webhook || settings.saveSample || signingSecret;
        if (kind !== job.kind) {
          job.kind = kind;
          job.writerGuid = newGuid();
        }
        if (settings.webhook) job.webhook = true;
        if (settings.saveSample) job.saveSample = true;
        if (signingSecret) job.signingSecret = signingSecret;
        if (changed) this.save(job);
        return job;
      });
      // Deleted by another process meanwhile: made again with this script.
      if (job) return { job, created: false };
    }
  }

  /**
   * Removes job `name` under job.json's lock, as every change of it: a process adding a trigger
   * meanwhile either changed it before or finds no job. The folder itself goes after the lock is
   * released (the lock file is in it), unless another process made the job again meanwhile; one
   * that was waiting for the lock to change the job may leave it empty, which is no job.
   */
  delete(name: string): void {
    if (!this.exists(name)) throw new ScriptError(`no job '${name}' in ${this.folder}`, 'semantic');
    const folder = this.jobFolder(name);
    const definition = this.definitionFile(name);
    withFileLock(definition, () => {
      if (!this.exists(name)) throw new ScriptError(`no job '${name}' in ${this.folder}`, 'semantic');
      // job.json goes first: a delete cut short leaves a folder that is no longer a job.
      rmSync(definition);
      // A waiter's lock being made aside is its own: removing it meanwhile would fail its removal.
      for (const entry of readdirSync(folder))
        if (!isLockEntry(definition, entry)) rmSync(join(folder, entry), { recursive: true, force: true });
    });
    try {
      rmdirSync(folder);
    } catch (e) {
      if (!['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
    }
    this.definitions.delete(name);
  }

  /**
   * The job as its files are now, or undefined when it does not exist: read again only when its
   * stamp changed since the last time (a listener asks on every call, and stating two files costs
   * less than reading and parsing job.json), and stamped at most once per STAMP_FRESH_MS, so a
   * listener under thousands of calls a second does not spend a tenth of its time in stat: an
   * edit of a job is seen by the calls that arrive that long after it. The definition is shared
   * between callers, who do not modify it.
   */
  current(name: string): CurrentJob | undefined {
    const known = this.definitions.get(name);
    const now = performance.now();
    if (known && now - known.stampedAt < STAMP_FRESH_MS) return known.current;
    const stamp = this.stamp(name);
    if (known?.current.stamp === stamp) {
      known.stampedAt = now;
      return known.current;
    }
    this.definitions.delete(name);
    // The stamp begins with job.json's: '-' when it is gone.
    if (stamp.startsWith('-')) return undefined;
    let job: JobDefinition;
    try {
      job = this.get(name);
    } catch (e) {
      // Deleted between the stat and the read.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof ScriptError) return undefined;
      throw e;
    }
    const fresh = { job, stamp };
    this.definitions.set(name, { current: fresh, stampedAt: now });
    return fresh;
  }

  /** The job a webhook guid names, and whether it is the writer guid of a direct job. */
  byGuid(guid: string): (CurrentJob & { writerGuid: boolean }) | undefined {
    const g = normalizeGuid(guid);
    if (!g) return undefined;
    const name = this.byGuidCache.get(g);
    const cached = name === undefined ? undefined : this.current(name);
    if (cached && (cached.job.guid === g || cached.job.writerGuid === g))
      return { job: cached.job, stamp: cached.stamp, writerGuid: cached.job.writerGuid === g };
    this.byGuidCache = new Map();
    let found: (CurrentJob & { writerGuid: boolean }) | undefined;
    for (const name of this.names()) {
      const current = this.current(name);
      if (!current) continue;
      const { job } = current;
      this.byGuidCache.set(job.guid, job.name);
      if (job.writerGuid) this.byGuidCache.set(job.writerGuid, job.name);
      if (job.guid === g || job.writerGuid === g) found = { ...current, writerGuid: job.writerGuid === g };
    }
    return found;
  }

  script(name: string, script: Script): string {
    return readFileSync(this.scriptFile(name, script), 'utf8').replace(/^\uFEFF/, '');
  }

  /**
   * For `job show`: what each LOAD the job's scripts start with plays next (load-positions.ts). A
   * script whose text does not start with LOAD is passed over without loading the interpreter, which
   * the other jobs' `job show` does without.
   */
  async loads(name: string, cwd: string): Promise<LoadShown[]> {
    const job = this.get(name);
    const scripts = (['reader', 'writer'] as const)
      .filter((s) => (s === 'reader' ? hasReader(job) : hasWriter(job)))
      .map((s) => ({ name: s, source: this.script(name, s) }))
      .filter((s) => startsWithLoad(s.source));
    if (scripts.length === 0) return [];
    // The parser and the LOAD command load with the first job that has a LOAD (startup: admin.ts).
    const { describeLoads } = require('./load-positions') as typeof import('./load-positions');
    return describeLoads(scripts, () => this.openSession({ workspace: this.workspace, pipeline: name, cwd }), name);
  }

  /**
   * Modification stamp of what a listener runs of a job, its definition and its writer (a call
   * never runs a direct job's reader): a listener reloads a job when it changes.
   */
  stamp(name: string): string {
    const folder = this.jobFolder(name);
    return ['job.json', 'writer.sql']
      .map((f) => {
        const s = statSync(join(folder, f), { throwIfNoEntry: false });
        return s ? `${s.ino}:${s.mtimeMs}` : '-';
      })
      .join('/');
  }

  /** runs.jsonl, as written; `runRecords` (recovery.ts) reads the runs it holds. */
  runs(name: string): JsonLines<RunLine> {
    let log = this.runLogs.get(name);
    if (!log) {
      log = new JsonLines<RunLine>(runsFile(this.workspace, name));
      this.runLogs.set(name, log);
    }
    return log;
  }

  saveSample(name: string, payload: Buffer): void {
    writeFileAtomic(join(this.jobFolder(name), 'sample.txt'), payload);
  }
}

/** Spec §4.1 rule 1: a webhook call runs a writer. */
function checkWebhook(kind: JobDefinition['kind']): void {
  if (kind === 'reader')
    throw new ScriptError('a reader job cannot be a webhook: a webhook needs a writer (spec §4.1 rule 1)', 'semantic');
}

/** A job's settings in words, as `job update` and `%job update` confirm them (never the secret). */
export function settingsInWords(job: JobDefinition): string {
  return `webhook ${job.webhook ? 'enabled' : 'not enabled'}, save sample ${job.saveSample ? 'yes' : 'no'}, signing secret ${job.signingSecret ? 'set' : 'none'}`;
}

export function summary(job: JobDefinition): JobSummary {
  return {
    name: job.name,
    kind: job.kind,
    guid: job.guid,
    reader: hasReader(job) ? job.guid : null,
    writer: hasWriter(job) ? (job.writerGuid ?? job.guid) : null,
    webhook: job.webhook,
    triggers: job.triggers,
  };
}
