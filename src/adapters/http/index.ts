// The HTTP adapter's door: the app (MCP endpoint, guards, metrics, OAuth routes, feeds, mail
// ingest), and every page a person uses behind loadPages(), loaded on a page's first request.
export { mountAuthorizationRoutes } from './authorization-routes.js';
export { bearerGate } from './bearer-gate.js';
export type { BearerIdentity } from './bearer-gate.js';
export { mountCalendarFeeds } from './calendar-feed-route.js';
export { mountServerCard, serverCard } from './server-card.js';
export type { ConsentPagesOptions } from './consent-pages.js';
export type { ConsoleContext } from './console/console-page.js';
export type { ConnectInfo } from './console/connect-snippets.js';
export { createHttpApp } from './http-app.js';
export { sessionCookieName } from './human-session.js';
export type { HumanSessions } from './human-session.js';
export { mountInboxIngest } from './inbox-ingest.js';
export type { InboxIngestOptions } from './inbox-ingest.js';
export type { McpGateOptions } from './mcp-gate.js';
export type { PageApp } from './page-app.js';
export type { ProviderLogin } from './provider-sign-in-pages.js';
export { isLoopbackAddress, serverNames } from './request-guards.js';
export { PROVIDER_CALLBACK_PATH } from './provider-callback.js';

export const loadPages = () => import('./pages.js');
/** The page mounters, once loaded. */
export type HttpPages = Awaited<ReturnType<typeof loadPages>>;
