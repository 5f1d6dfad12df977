/** The frame of The Deck: session gate, navigation, the panel of the route, toasts. */
import { useEffect, useState } from 'preact/hooks';
import { ShortcutsDialog } from './components/shortcuts.js';
import { Toasts } from './components/toasts.js';
import { loadSession, post, SIGNED_OUT, type Session } from './lib/api.js';
import { startFeed, useFeed } from './lib/feed.js';
import { leftAlone } from './lib/matrix-keys.js';
import { applyPrefs, loadPrefs, type Skin, type Theme } from './lib/prefs.js';
import { href, useRoute, type Route } from './lib/route.js';
import { AuditPanel } from './panels/audit.js';
import { BulkPanel } from './panels/bulk-list.js';
import { FlowPanel } from './panels/flow.js';
import { InboxPanel } from './panels/inbox.js';
import { InspectorPanel } from './panels/inspector.js';
import { JobsPanel } from './panels/jobs.js';
import { OverviewPanel } from './panels/overview.js';
import { QueuesPanel } from './panels/queues.js';
import { SchedulesPanel } from './panels/schedules.js';
import { SettingsPanel } from './panels/settings.js';
import { SignIn } from './panels/sign-in.js';
import { SystemPanel } from './panels/system.js';

const NAV: [string, string, string][] = [
  ['overview', 'Overview', 'g o'],
  ['queues', 'Queues', 'g q'],
  ['jobs', 'Jobs', 'g j'],
  ['inbox', 'Failures', 'g f'],
  ['schedules', 'Schedules', 'g c'],
  ['flow', 'Flow control', 'g l'],
  ['bulk', 'Bulk actions', 'g b'],
  ['audit', 'Audit', 'g a'],
  ['system', 'System', 'g s'],
  ['settings', 'Settings', 'g e'],
];

/** The app. */
export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const refresh = () => loadSession().then(setSession, (e: unknown) => setFailed(String(e)));
  useEffect(() => {
    applyPrefs(loadPrefs(), false);
    void refresh();
    // A 401 anywhere means the session ended: ask again, which shows the sign-in form.
    const onSignedOut = () => void refresh();
    addEventListener(SIGNED_OUT, onSignedOut);
    return () => removeEventListener(SIGNED_OUT, onSignedOut);
  }, []);
  if (failed) return <main class="center">The Deck cannot reach its server: {failed}</main>;
  if (session === null) return <main class="center">Loading…</main>;
  if (session.access === 'none') return <SignIn onSignedIn={() => void refresh()} />;
  return (
    <Signed session={session} onSignOut={() => void post('sign-out').then(refresh, refresh)} />
  );
}

function Signed({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const feed = useFeed();
  useEffect(() => startFeed(), []);
  const [keys, setKeys] = useState(false);
  useKeyboard(() => setKeys(true));
  const operate = session.access === 'operate';
  const section = route.parts[0] ?? 'overview';
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={href('overview')}>
          ChokaQ <span>The Deck</span>
        </a>
        {session.environment && <span class="env">{session.environment}</span>}
        <span class={feed.connected ? 'live on' : 'live'} title="live feed">
          {feed.connected ? (feed.stale ? 'live, state not read lately' : 'live') : 'offline'}
        </span>
        <span class="spacer" />
        <span class="who" title={`access: ${session.access}`}>
          {session.actor} · {session.access}
        </span>
        <LookMenu />
        <button type="button" class="ghost small" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Panels">
        {NAV.map(([id, label, keys]) => (
          <a
            key={id}
            href={href(id)}
            class={section === id ? 'active' : ''}
            title={`${label} (${keys})`}
          >
            {label}
          </a>
        ))}
      </nav>
      <main class="main">
        <Panel route={route} operate={operate} />
      </main>
      <Toasts />
      {keys && <ShortcutsDialog nav={NAV} onClose={() => setKeys(false)} />}
    </div>
  );
}

function Panel({ route, operate }: { route: Route; operate: boolean }) {
  const [section, sub] = route.parts;
  switch (section) {
    case 'queues':
      return <QueuesPanel operate={operate} />;
    case 'jobs':
      return <JobsPanel tab={sub} params={route.params} operate={operate} />;
    case 'job':
      return <InspectorPanel id={sub ?? ''} operate={operate} />;
    case 'inbox':
      return <InboxPanel operate={operate} />;
    case 'schedules':
      return <SchedulesPanel operate={operate} />;
    case 'flow':
      return <FlowPanel />;
    case 'bulk':
      return <BulkPanel id={sub} operate={operate} />;
    case 'audit':
      return <AuditPanel />;
    case 'system':
      return <SystemPanel operate={operate} />;
    case 'settings':
      return <SettingsPanel />;
    default:
      return <OverviewPanel />;
  }
}

function LookMenu() {
  const [prefs, setPrefs] = useState(loadPrefs);
  const set = (next: { skin: Skin; theme: Theme }) => {
    applyPrefs(next);
    setPrefs(next);
  };
  return (
    <span class="look">
      <select
        aria-label="Skin"
        value={prefs.skin}
        onChange={(e) => set({ ...prefs, skin: (e.target as HTMLSelectElement).value as Skin })}
      >
        <option value="blueprint">blueprint</option>
        <option value="carbon">carbon</option>
      </select>
      <select
        aria-label="Theme"
        value={prefs.theme}
        onChange={(e) => set({ ...prefs, theme: (e.target as HTMLSelectElement).value as Theme })}
      >
        <option value="system">system</option>
        <option value="light">light</option>
        <option value="dark">dark</option>
      </select>
    </span>
  );
}

/** `g` then a letter goes to a panel; `/` focuses the page's search field; `?` shows the keys. */
function useKeyboard(showKeys: () => void): void {
  useEffect(() => {
    let leader = false;
    const onKey = (e: KeyboardEvent) => {
      if (leftAlone(e)) return;
      if (e.key === '?') {
        e.preventDefault();
        showKeys();
        return;
      }
      if (e.key === '/') {
        const search = document.querySelector<HTMLInputElement>('[data-search]');
        if (search) {
          e.preventDefault();
          search.focus();
        }
        return;
      }
      if (leader) {
        leader = false;
        const match = NAV.find(([, , keys]) => keys === `g ${e.key}`);
        if (match) location.hash = href(match[0]);
        return;
      }
      if (e.key === 'g') leader = true;
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}
