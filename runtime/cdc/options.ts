import { ScriptError, type Position } from '../errors';
import { splitNames } from '../writers/fields';
import type { Capture, Text } from '../script/ast';

/** What a CAPTURE asks of change detection, checked and with spec 4.2's defaults applied. */
export interface CaptureOptions {
  /** ON KEYS; empty when absent: no change detection, every run captures the whole dataset (rule 2). */
  keys: string[];
  /** OBSERVE; undefined when absent: every column but the keys. */
  observe?: string[];
  /** Which changes are reported; with KEYS and none of INSERTS/UPDATES/DELETES, inserts and updates. */
  inserts: boolean;
  updates: boolean;
  deletes: boolean;
  ignoreDups: boolean;
  initOnFirstRun: boolean;
  /** CDCMARKER: the field added to the upserts, holding I or U. */
  marker?: string;
  /** Where KEYS and OBSERVE are written, for errors about their columns. */
  keysPos?: Position;
  observePos?: Position;
}

export type CaptureClauses = Pick<
  Capture,
  'pos' | 'keys' | 'observe' | 'inserts' | 'updates' | 'deletes' | 'initOnFirstRun' | 'ignoreDups' | 'cdcMarker'
>;

export function captureOptions(stmt: CaptureClauses): CaptureOptions {
  const keys = stmt.keys ? columnList(stmt.keys, 'ON KEYS') : [];
  if (keys.length === 0) {
    const needKeys = [
      stmt.inserts && 'INSERTS',
      stmt.updates && 'UPDATES',
      stmt.deletes && 'DELETES',
      stmt.observe && 'OBSERVE',
      stmt.ignoreDups && 'IGNORE_DUPS',
      stmt.initOnFirstRun && 'INIT_ON_FIRST_RUN',
    ].filter((k): k is string => typeof k === 'string');
    if (needKeys.length) {
      throw new ScriptError(
        `${needKeys.join(', ')} ${needKeys.length === 1 ? 'needs' : 'need'} ON KEYS: without keys every run captures the whole dataset`,
        'semantic',
        stmt.pos,
      );
    }
  }
  const any = stmt.inserts || stmt.updates || stmt.deletes;
  const options: CaptureOptions = {
    keys,
    inserts: any ? stmt.inserts : true,
    updates: any ? stmt.updates : true,
    deletes: stmt.deletes,
    ignoreDups: stmt.ignoreDups,
    initOnFirstRun: stmt.initOnFirstRun,
  };
  if (stmt.keys) options.keysPos = stmt.keys.pos;
  if (stmt.observe) {
    options.observe = columnList(stmt.observe, 'OBSERVE');
    options.observePos = stmt.observe.pos;
  }
  if (stmt.cdcMarker) {
    const marker = stmt.cdcMarker.value.trim();
    if (marker === '') throw new ScriptError('CDCMARKER needs a field name', 'semantic', stmt.cdcMarker.pos);
    options.marker = marker;
  }
  return options;
}

function columnList(text: Text, clause: string): string[] {
  const names = splitNames(text.value);
  if (names.length === 0) throw new ScriptError(`${clause} lists no column`, 'semantic', text.pos);
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name.toLowerCase())) throw new ScriptError(`${clause} lists '${name}' twice`, 'semantic', text.pos);
    seen.add(name.toLowerCase());
  }
  return names;
}
