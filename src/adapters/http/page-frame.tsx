import type { Child } from 'hono/jsx';
import { raw } from 'hono/html';

/**
 * The `<head>` of every page, the console's and the plain ones: this site's one stylesheet (no
 * inline style: the CSP allows only this site's files), a viewport for phones, the title as
 * "<page> · Holdfast", and the page's own scripts (none where the CSP allows no script).
 */
export function Head(props: { title: string; scripts?: readonly string[] }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${props.title} · Holdfast`}</title>
      <link rel="stylesheet" href="/assets/console.css" />
      {(props.scripts ?? []).map((src) => (
        <script src={src} defer></script>
      ))}
    </head>
  );
}

/**
 * The frame of every page: the skip link, the header bar with the brand (and whatever else the
 * page puts there: the console its sections and who is signed in), and the one main landmark.
 */
export function Frame(props: {
  title: string;
  scripts?: readonly string[];
  /** The body's class: `plain` for the pages outside the console (a narrower column). */
  bodyClass?: string;
  /** What the header bar holds after the brand. */
  header?: Child;
  children?: Child;
}) {
  return (
    <>
      {raw('<!doctype html>')}
      <html lang="en">
        <Head title={props.title} scripts={props.scripts} />
        <body class={props.bodyClass}>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="bar">
            <a class="brand" href="/console">
              Holdfast
            </a>
            {props.header}
          </header>
          <main id="main">{props.children}</main>
        </body>
      </html>
    </>
  );
}
