/** One signed POST of one event to one receiver. */
export interface WebhookRequest {
  readonly url: string;
  /** `webhook-id`: the event id, the same on every retry. */
  readonly eventId: string;
  /** `webhook-timestamp`, unix seconds. */
  readonly timestamp: number;
  readonly body: string;
  /** The subscription's secret as stored; only the sender opens it. */
  readonly sealedSecret: string;
}

export interface WebhookResponse {
  /** null: no HTTP answer (refused address, timeout, connection error). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** What went wrong, in a few words; null on a 2xx. */
  readonly error: string | null;
}

/** Sends signed webhook requests (Standard Webhooks), guarded against private addresses. */
export interface WebhookSender {
  /**
   * POSTs one signed event and reports how it went: a refused address, a timeout or a non-2xx answer
   * (redirects are not followed) comes back in `error`.
   */
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** Per-subscription signing secrets: made here, shown once, stored only sealed. */
export interface WebhookSecrets {
  /** A new `whsec_…` secret and its sealed form for the store. */
  create(): { readonly secret: string; readonly sealed: string };
}
