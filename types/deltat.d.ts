/**
 * `import { createDeltatMcpServer } from 'holdfast/deltat'`: deltat's tools as an MCP server on an
 * embedded Holdfast (`createHoldfast` from 'holdfast'); connect it to a transport of your own.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { Holdfast } from '../dist/types/main/embed-api.js';

export declare function createDeltatMcpServer(holdfast: Holdfast): McpServer;
