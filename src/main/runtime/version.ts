export { SERVER_VERSION as holdfastVersion } from '../../adapters/mcp/index.js';
