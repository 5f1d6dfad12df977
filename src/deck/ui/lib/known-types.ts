/**
 * The job types whose schema this Deck's process knows (its `jobs`, from `api/settings`): a
 * payload of any other type can only be checked as JSON, which the editors say before editing.
 * Read once per page; a process's definitions do not change while it runs.
 */
import { useEffect, useState } from 'preact/hooks';
import type { SettingsView } from '../../api/settings.js';
import { get } from './api.js';

let known: Promise<ReadonlySet<string>> | null = null;

/** The known types, or `null` until read (a failed read is tried again on the next call). */
export function useKnownTypes(): ReadonlySet<string> | null {
  const [types, setTypes] = useState<ReadonlySet<string> | null>(null);
  useEffect(() => {
    known ??= get<SettingsView>('settings').then(
      (s) => new Set(s.engine.jobTypes.map((t) => t.type)),
      (error: unknown) => {
        known = null;
        throw error;
      },
    );
    let current = true;
    known.then(
      (set) => current && setTypes(set),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, []);
  return types;
}

/** The types of `types` whose schema is not known here, given the known ones. */
export function unknownTypes(types: readonly string[], knownTypes: ReadonlySet<string>): string[] {
  return [...new Set(types)].filter((type) => !knownTypes.has(type));
}
