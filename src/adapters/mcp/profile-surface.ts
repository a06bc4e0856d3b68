import type { McpServer } from '@modelcontextprotocol/server';
import type { ClientIdentity, ToolContext, ToolSurface } from './tool-kit.js';

/** What a profile serves: the instructions it gives, and what it registers on a server. */
export interface ProfileSurface {
  /** How the server names itself to clients (serverInfo) when it is not Holdfast's own surface. */
  readonly serverInfo?: { readonly name: string; readonly title: string };
  instructions(surface: ToolSurface): string;
  register(server: McpServer, ctx: ToolContext, identity: ClientIdentity, surface: ToolSurface): void;
}
