import type { Child } from 'hono/jsx';
import type { SignedIn } from '../../app/identity/sessions.js';
import { csrfToken } from './human-session.js';
import { Frame } from './page-frame.js';

/**
 * The frame of the pages outside the console (sign-in, setup, account, consent): the console's
 * own head, header bar and main landmark, in a narrower column, so a person sees one design
 * from the first sign-in on.
 */
export function Layout(props: { title: string; children?: Child }) {
  return (
    <Frame title={props.title} bodyClass="plain">
      {props.children}
    </Frame>
  );
}

/** The sign-out button, for pages a signed-in person sees. */
export function SignOutForm(props: { signed: SignedIn }) {
  const { signed } = props;
  return (
    <form method="post" action="/logout" class="muted">
      Signed in as {signed.person.email} ({signed.person.role}) · <a href="/console">console</a> ·{' '}
      <a href="/account">your account and passkeys</a>
      <input type="hidden" name="csrf" value={csrfToken(signed.session, 'logout')} />{' '}
      <button type="submit">Sign out</button>
    </form>
  );
}
