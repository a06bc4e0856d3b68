import type { HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';

/** The app every page and route is mounted on: Node's request and response ride along as bindings. */
export type PageApp = Hono<{ Bindings: HttpBindings }>;
