// The HTTP adapter's door: the app (MCP endpoint, guards, metrics) and every page a person uses,
// each mounted by the composition root.
export { mountLegacyApprovalLinks } from './approval-links.js';
export { mountAuthorizationRoutes } from './authorization-routes.js';
export { bearerGate } from './bearer-gate.js';
export type { BearerIdentity } from './bearer-gate.js';
export { mountCalendarFeeds } from './calendar-feed-route.js';
export { mountConsentPages } from './consent-pages.js';
export type { ConsentPagesOptions } from './consent-pages.js';
export { consoleApp } from './console/console-app.js';
export { mountConsoleAssets } from './console/console-assets.js';
export { consolePage } from './console/console-page.js';
export type { ConsoleContext } from './console/console-page.js';
export { showDevSections } from './console/shell.js';
export { createHttpApp } from './http-app.js';
export { sessionCookieName } from './human-session.js';
export type { HumanSessions } from './human-session.js';
export { mountInboxIngest } from './inbox-ingest.js';
export type { InboxIngestOptions } from './inbox-ingest.js';
export type { McpGateOptions } from './mcp-gate.js';
export type { PageApp } from './page-app.js';
export { mountPasskeyPages } from './passkey-pages.js';
export { mountDevPaymentForm } from './payment-form.js';
export { PROVIDER_CALLBACK_PATH, mountProviderSignInPages } from './provider-sign-in-pages.js';
export type { ProviderLogin } from './provider-sign-in-pages.js';
export { isLoopbackAddress, serverNames } from './request-guards.js';
export { mountSignInPages } from './sign-in-pages.js';
