/**
 * A one-time sign-in link expires ten minutes after it was made, on The Deck's clock (here a
 * clock the test moves): opened in time it signs in once; opened later it grants nothing, which
 * the handler answers with the page for a spent or expired link (test/deck/api-truth.ts shows
 * that page for a spent one).
 */
import { describe, expect, it } from 'vitest';
import { AccessControl } from '../../src/deck/access.js';
import { checkDeckOptions } from '../../src/deck/options.js';
import { spentLinkPage } from '../../src/deck/sign-in-page.js';
import { ChokaQ, memory, silentLogger } from '../../src/index.js';

const MINUTE = 60_000;

/** Access control of a Deck whose clock reads `clock.now`. */
function accessAt(clock: { now: number }): AccessControl {
  const chokaq = new ChokaQ({ storage: memory(), logger: silentLogger });
  return new AccessControl(checkDeckOptions({ chokaq }), () => clock.now);
}

describe('sign-in link expiry', () => {
  it('signs in once within ten minutes of the link being made', () => {
    const clock = { now: 1_000_000 };
    const access = accessAt(clock);
    const token = access.signInLink({ access: 'operate', actor: 'ines' });
    clock.now += 10 * MINUTE - 1;
    const signedIn = access.signIn(token, { linksOnly: true });
    expect(signedIn?.session).toMatchObject({ access: 'operate', actor: 'ines' });
    expect(access.signIn(token, { linksOnly: true })).toBeNull();
  });

  it('grants nothing ten minutes after the link was made, even unused', () => {
    const clock = { now: 1_000_000 };
    const access = accessAt(clock);
    const token = access.signInLink({ access: 'operate' });
    clock.now += 10 * MINUTE;
    expect(access.signIn(token, { linksOnly: true })).toBeNull();
    // A fresh link made now works: no restart needed.
    const fresh = access.signInLink({ access: 'operate' });
    expect(access.signIn(fresh, { linksOnly: true })).not.toBeNull();
  });

  it('answers with a page that says the link expired or was used, and how to get a new one', () => {
    const html = spentLinkPage('press Enter in the terminal that runs chokaq deck');
    expect(html).toContain('This sign-in link no longer works');
    expect(html).toContain('has expired');
    expect(html).toContain('press Enter in the terminal that runs chokaq deck');
  });
});
