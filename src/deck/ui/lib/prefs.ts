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

/** Applies and saves a look (the URL's `skin` and `theme` parameters win for one visit). */
export function applyPrefs(prefs: { skin: Skin; theme: Theme }, save = true): void {
  document.documentElement.dataset.skin = prefs.skin;
  document.documentElement.dataset.theme = prefs.theme;
  if (save) {
    localStorage.setItem('chokaq.deck.skin', prefs.skin);
    localStorage.setItem('chokaq.deck.theme', prefs.theme);
  }
}
