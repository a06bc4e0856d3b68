export { SERVER_VERSION as holdfastVersion } from '../../adapters/mcp/server-version.js';
