import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ScriptError } from '../errors';
import { PIPELINE_NAME, PIPELINE_NAME_RULE } from '../pipeline-name';

/** Job kinds of spec §2.3: a reader, a writer, or both in one (direct). */
export type JobKind = 'reader' | 'writer' | 'direct';

/** When a trigger fires, after a run of the job it is defined on. */
export const TRIGGER_KINDS = ['completion', 'success', 'success-with-data', 'failure'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

export interface Trigger {
  on: TriggerKind;
  /** The job to run. */
  run: string;
}

/**
 * A job as stored in `<workspace>/jobs/<name>/job.json`; its scripts sit beside it (reader.sql,
 * writer.sql). `guid` is what webhook calls name: the writer's for a writer job, the reader's for a
 * direct job (spec §4.1: a direct job's writer guid is refused), whose writer guid is `writerGuid`.
 */
export interface JobDefinition {
  name: string;
  kind: JobKind;
  guid: string;
  writerGuid?: string;
  webhook: boolean;
  saveSample: boolean;
  triggers: Trigger[];
  /** The Standard Webhooks signing secret, sealed with the workspace key (label: `job:<name>`). */
  signingSecret?: string;
  created: string;
}

export const GUID = /^[0-9a-f]{32}$/;

export function newGuid(): string {
  return randomBytes(16).toString('hex');
}

/** Guids are compared in the form requests use: 32 hex digits, any case, dashes and braces ignored. */
export function normalizeGuid(text: string): string | undefined {
  // A listener normalizes the guid of every call, usually one already in normal form.
  if (GUID.test(text)) return text;
  const g = text.replace(/[{}-]/g, '').toLowerCase();
  return GUID.test(g) ? g : undefined;
}

/** A job name is a pipeline name: it names the job's folder, its CDC state and its change logs. */
export function checkJobName(name: string): string {
  if (!PIPELINE_NAME.test(name))
    throw new ScriptError(`'${name}' is not a job name (${PIPELINE_NAME_RULE})`, 'semantic');
  return name;
}

/** Where a workspace keeps its jobs, one folder each. */
export function jobsFolder(workspace: string): string {
  return join(workspace, 'jobs');
}

/** A job's runs.jsonl, its run records (run-log.ts). */
export function runsFile(workspace: string, name: string): string {
  return join(jobsFolder(workspace), checkJobName(name), 'runs.jsonl');
}

export function isTriggerKind(text: string): text is TriggerKind {
  return (TRIGGER_KINDS as readonly string[]).includes(text);
}

export function kindOf(hasReader: boolean, hasWriter: boolean): JobKind {
  if (hasReader && hasWriter) return 'direct';
  if (hasReader) return 'reader';
  if (hasWriter) return 'writer';
  throw new ScriptError(
    'a job needs a reader script, a writer script or both (--reader FILE.sql, --writer FILE.sql)',
    'semantic',
  );
}

export const hasReader = (job: JobDefinition) => job.kind !== 'writer';
export const hasWriter = (job: JobDefinition) => job.kind !== 'reader';

/** The label a job's signing secret is sealed under, so it cannot be moved to another job. */
export const secretLabel = (name: string) => `job:${name}`;
