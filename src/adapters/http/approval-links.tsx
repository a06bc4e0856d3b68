import type { Context } from 'hono';
import type { Person } from '../../domain/identity/identity.js';
import type { PageApp } from './page-app.js';
import type { HumanSessions } from './human-session.js';
import { signedInOf } from './human-session.js';
import { PAGE_HEADERS } from './page-headers.js';
import { Layout } from './page-layout.js';

/**
 * Approval links handed out before the console (`/approvals/<one-time token>`) still lead to
 * the approval: to the console's page of it, after sign-in. The link decides nothing, so a
 * POST to it is sent the same way, and a token already spent or of another tenant is unknown.
 */
export function mountLegacyApprovalLinks(
  app: PageApp,
  options: {
    readonly sessions: HumanSessions;
    /** The approval's id, if the token is live and of the person's tenant. */
    readonly approvalOf: (token: string, person: Person) => Promise<string | null>;
  },
): void {
  const follow = async (c: Context) => {
    const token = c.req.param('token') ?? '';
    const signed = await signedInOf(c, options.sessions);
    if (!signed) return c.redirect(`/login?next=${encodeURIComponent(`/approvals/${token}`)}`, 303);
    const id = await options.approvalOf(token, signed.person);
    if (!id)
      return c.html(
        <Layout title="Unknown link">
          <h1>This approval link is unknown or was already used.</h1>
        </Layout>,
        404,
        PAGE_HEADERS,
      );
    return c.redirect(`/console/approvals/${encodeURIComponent(id)}`, 303);
  };
  app.get('/approvals/:token', follow);
  app.post('/approvals/:token', follow);
}
