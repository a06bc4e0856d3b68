// The MCP adapter's door. The server (the SDK and every tool) loads when a command serves it;
// `--version`, links and the stdio line limit do not need it.
export { linksFor } from './links.js';
export type { Links } from './links.js';
export { REGISTRY_NAME, SERVER_VERSION } from './server-version.js';
export { LineLimit, oversizeError } from './stdio-line-limit.js';
export { ResourceBus } from './resource-bus.js';
export { waitlistUri } from './resources/resource-names.js';
export type { ApprovalState, ProfileSettings, ToolContext } from './tool-kit.js';

export const loadMcpServer = () => import('./server-factory.js');
/** The Server Card's listing of a server (an in-memory client): loaded with the card's first request. */
export const loadSurfaceListing = () => import('./surface-listing.js');
