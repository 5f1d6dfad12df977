/**
 * The page a browser gets for a sign-in link that is unknown, already used or expired: what
 * happened and how to get a new link, styled like The Deck (its stylesheet, no inline style or
 * script, so the Content-Security-Policy holds).
 */

/** Escapes text for HTML. */
function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The HTML of the page; `help` says how to get a new link (plain text). */
export function spentLinkPage(help: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Sign-in link spent · The Deck</title>
    <link rel="stylesheet" href="./assets/app.css" />
  </head>
  <body>
    <main class="center">
      <section class="card sign-in" data-link-spent>
        <h1>This sign-in link no longer works</h1>
        <p>A sign-in link works once, within ten minutes of being made: this one was already used, has expired, or was made by a Deck that has since restarted.</p>
        <p><b>To get a new one:</b> ${escape(help)}</p>
        <p><a class="button" href="./">Sign in with a token</a></p>
      </section>
    </main>
  </body>
</html>
`;
}
