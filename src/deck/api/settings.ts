/**
 * The Settings panel's read: the engine's configuration, every known queue with what it runs with
 * (the stored controls and the configured timeouts, lag thresholds and retention), and The
 * Deck's own options. No secret is in it: tokens appear as how many there are per access, the
 * storage by its kind only.
 */
import type { ChokaQ } from '../../chokaq.js';
import type { EngineConfiguration, QueueConfiguration } from '../../operator/configuration.js';
import type { QueueInfo } from '../../storage/model.js';
import { packageVersion } from '../../version.js';
import type { DeckAccess, DeckSettings } from '../options.js';
import type { Route } from '../routes.js';

/** One queue: its stored controls and the settings this process runs it with. */
export type QueueSettingsView = QueueInfo & Omit<QueueConfiguration, 'name'>;

/** The Deck's options as the panel shows them. */
export interface DeckSettingsView {
  basePath: string;
  environment: string | null;
  feedIntervalMs: number;
  sessionTtlMs: number;
  anonymous: DeckAccess;
  /** Whether an `authorize(req)` hook decides access. */
  authorize: boolean;
  /** How many built-in tokens grant each access (never the tokens). */
  tokens: { read: number; operate: number };
}

/** What `GET api/settings` answers. */
export interface SettingsView {
  version: string;
  engine: EngineConfiguration;
  queues: QueueSettingsView[];
  deck: DeckSettingsView;
}

/** The route of `api/settings`. */
export function settingsRoutes(settings: DeckSettings): Route[] {
  const { chokaq } = settings;
  return [
    {
      method: 'GET',
      path: 'settings',
      access: 'read',
      handle: async (): Promise<SettingsView> => ({
        version: packageVersion(),
        engine: chokaq.configuration(),
        queues: await queueSettings(chokaq),
        deck: {
          basePath: settings.basePath,
          environment: settings.environment,
          feedIntervalMs: settings.feedIntervalMs,
          sessionTtlMs: settings.sessionTtlMs,
          anonymous: settings.anonymous,
          authorize: settings.authorize !== undefined,
          tokens: {
            read: settings.tokens.filter((t) => t.access === 'read').length,
            operate: settings.tokens.filter((t) => t.access === 'operate').length,
          },
        },
      }),
    },
  ];
}

/** Every known queue with its stored controls and the settings it runs with here. */
async function queueSettings(chokaq: ChokaQ): Promise<QueueSettingsView[]> {
  const { queues: configured, queueDefaults } = chokaq.configuration();
  const byName = new Map(configured.map(({ name, ...rest }) => [name, rest]));
  return (await chokaq.queues.list()).map((info) => ({
    ...(byName.get(info.name) ?? queueDefaults),
    ...info,
  }));
}
