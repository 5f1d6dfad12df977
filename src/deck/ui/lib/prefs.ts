/** The look: skin (blueprint, carbon) and theme (system, light, dark), kept in this browser. */

/** A look: blueprint (technical blue on paper) or carbon (neutral graphite). */
export type Skin = 'blueprint' | 'carbon';
/** Light or dark, or as the operating system says (`system`). */
export type Theme = 'system' | 'light' | 'dark';

const read = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
  const value = localStorage.getItem(`chokaq.deck.${key}`);
  return allowed.includes(value as T) ? (value as T) : fallback;
};

/** The saved look. */
export function loadPrefs(): { skin: Skin; theme: Theme } {
  return {
    skin: read('skin', ['blueprint', 'carbon'], 'blueprint'),
    theme: read('theme', ['system', 'light', 'dark'], 'system'),
  };
}

const darkQuery = matchMedia('(prefers-color-scheme: dark)');
let current: Theme = 'system';

/** Sets `data-mode` (light or dark) from the theme, the system's for `system`. */
function applyMode(): void {
  const dark = current === 'dark' || (current === 'system' && darkQuery.matches);
  document.documentElement.dataset.mode = dark ? 'dark' : 'light';
}
darkQuery.addEventListener('change', applyMode);

/** Applies a look and, unless `save` is false, keeps it in this browser. */
export function applyPrefs(prefs: { skin: Skin; theme: Theme }, save = true): void {
  document.documentElement.dataset.skin = prefs.skin;
  current = prefs.theme;
  applyMode();
  if (save) {
    localStorage.setItem('chokaq.deck.skin', prefs.skin);
    localStorage.setItem('chokaq.deck.theme', prefs.theme);
  }
}
