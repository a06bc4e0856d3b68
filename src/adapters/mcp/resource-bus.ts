import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';

/**
 * Resource changes for `subscriptions/listen`: the HTTP handler's listen streams and each stdio
 * connection subscribe here; the waitlist matcher publishes (and, across instances, the
 * PostgreSQL bridge republishes what another instance published).
 */
export class ResourceBus implements ServerEventBus {
  private readonly listeners = new Set<(event: ServerEvent) => void>();

  constructor(private readonly onError: (error: unknown) => void = () => undefined) {}

  publish(event: ServerEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** One resource changed: every stream listening to it is told. */
  updated(uri: string): void {
    this.publish({ kind: 'resource_updated', uri });
  }
}
