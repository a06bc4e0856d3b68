import type { Context, MiddlewareHandler } from 'hono';
import { clientAddress } from './human-session.js';

/** How many requests nobody is known for yet may be in flight: from one address, and in all. */
export const ANONYMOUS_IN_FLIGHT = { perAddress: 16, total: 128 } as const;

export type Admitted = { readonly release: () => void };
export type Refused = { readonly refused: 429 | 503 };

/**
 * Counts the requests in flight that carry no verified credential — every page, form and OAuth
 * request; not /mcp, which reads nothing before its bearer token and answers a refused one from
 * the headers — past the bound for one address or for all, the next is refused at once, so that
 * many connections cannot do together what one cannot do alone (each holds at most its route's
 * body limit, for at most its body deadline).
 */
export class AnonymousAdmission {
  private readonly byAddress = new Map<string, number>();
  private total = 0;

  constructor(private readonly bounds: { perAddress: number; total: number } = ANONYMOUS_IN_FLIGHT) {}

  enter(from: string): Admitted | Refused {
    const address = addressKey(from);
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= this.bounds.perAddress) return { refused: 429 };
    if (this.total >= this.bounds.total) return { refused: 503 };
    this.byAddress.set(address, mine + 1);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.byAddress.get(address) ?? 1) - 1;
        if (left === 0) this.byAddress.delete(address);
        else this.byAddress.set(address, left);
      },
    };
  }

  /** In flight now (tests, metrics). */
  get inFlight(): number {
    return this.total;
  }
}

/**
 * Whom a count is kept for: an IPv4 address, or an IPv6 address's /64 (one party usually holds a
 * whole /64, and would otherwise count as millions of strangers).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::', 2);
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back]
    : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The answer to a request over the bound: at once, before any of its body is read. */
export function admissionRefusal(status: 429 | 503): Response {
  const message =
    status === 429
      ? 'Too many requests from this address at once; retry in a second.'
      : 'The server is busy with requests from elsewhere; retry in a second.';
  return Response.json(
    { error: status === 429 ? 'too_many_requests' : 'server_busy', message },
    { status, headers: { 'Retry-After': '1', connection: 'close' } },
  );
}

/** Requests that carry a body (nothing else can be held open past its headers' deadline). */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every request with a body is admitted here, but POST /mcp's: a GET (health, metrics, a page,
 * an asset) is answered as soon as its headers are in, so it holds nothing and is never turned
 * away for strangers — a load balancer's health check always gets through.
 */
export function admitAnonymous(admission: AnonymousAdmission, trustProxy: boolean): MiddlewareHandler {
  return async (c: Context, next) => {
    if (!WITH_BODY.has(c.req.method) || c.req.path === '/mcp') return next();
    const entered = admission.enter(clientAddress(c, trustProxy));
    if ('refused' in entered) return admissionRefusal(entered.refused);
    try {
      await next();
    } finally {
      entered.release();
    }
  };
}
