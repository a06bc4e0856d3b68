/**
 * What approving does, in words a person can decide on: to the time, to the money and to the
 * customer. One statement, computed from the approval's bound intent and the booking's payment
 * state, and shown the same on the approval page, the console's queue, `holdfast approvals show`
 * and the question an MCP host puts to its user.
 */

export type ConsequenceAction = 'confirm' | 'cancel' | 'move';
/** The booking's payment as far as approving is concerned (a closed payment counts as failed). */
export type PaymentStanding = 'none' | 'pending' | 'paid' | 'failed';

export interface ConsequenceFacts {
  readonly action: ConsequenceAction;
  readonly payment: PaymentStanding;
  readonly price: { readonly amount: string; readonly currency: string } | null;
  readonly customerName: string | null;
  /** The calendars by name: "Room 1 and Room 2". */
  readonly calendars: string;
  /** The (new) time in the first calendar's zone: "Thu 3 Dec 2026, 08:00–09:00 (Shanghai)". */
  readonly when: string;
  /** A move: the time it gives up, in the same zone. */
  readonly movedFromWhen?: string;
  /** A series: how many bookings it confirms or cancels at once. */
  readonly dates?: number;
}

export interface Consequence {
  readonly time: string;
  readonly money: string;
  readonly customer: string;
  /** Set when approving makes money owed back to the customer. */
  readonly refundDue: { readonly amount: string; readonly currency: string } | null;
}

export function paymentStandingOf(
  payment: { readonly status: 'PENDING' | 'PAID' | 'FAILED' | 'CLOSED' } | null,
): PaymentStanding {
  if (payment === null) return 'none';
  if (payment.status === 'PAID') return 'paid';
  if (payment.status === 'PENDING') return 'pending';
  return 'failed';
}

export function consequenceOf(facts: ConsequenceFacts): Consequence {
  const who = facts.customerName ?? 'the customer';
  const Who = capitalise(who);
  const whose = facts.customerName ? `${facts.customerName}'s` : "the customer's";
  const price = facts.price;
  const money = price ? `${price.amount} ${price.currency}` : null;
  switch (facts.action) {
    case 'confirm':
      return {
        time: `Books ${facts.calendars} for ${who} on ${facts.when}; nobody else can take ${facts.dates ? 'those times' : 'that time'}.`,
        money: confirmMoney(facts.payment, money, Who, facts.dates !== undefined),
        customer:
          money && facts.payment === 'failed'
            ? `${Who} gets no booking.`
            : `${Who} gets ${facts.dates ? `${facts.dates} confirmed bookings` : 'a confirmed booking'}${money && facts.payment !== 'paid' ? ' once the payment clears' : ''}.`,
        refundDue: null,
      };
    case 'cancel': {
      const owed = money !== null && facts.payment === 'paid';
      return {
        time: facts.dates
          ? `Cancels ${whose} ${facts.dates} bookings on ${facts.when} (${facts.calendars}); those times become free for others.`
          : `Cancels ${whose} booking on ${facts.when} (${facts.calendars}); the time becomes free for others.`,
        money: cancelMoney(facts.payment, money, Who, who),
        customer: `${Who} loses ${facts.dates ? `these ${facts.dates} bookings` : 'this booking'}${owed ? ` and is owed ${money} back` : ''}.`,
        refundDue: owed ? price : null,
      };
    }
    case 'move':
      return {
        time: `Moves ${whose} booking (${facts.calendars}) from ${facts.movedFromWhen ?? 'its old time'} to ${facts.when}; the old time becomes free for others.`,
        money: moveMoney(facts.payment, money, Who),
        customer: `${Who} keeps one booking, at the new time.`,
        refundDue: null,
      };
  }
}

function confirmMoney(payment: PaymentStanding, money: string | null, Who: string, plural: boolean): string {
  const booking = plural ? 'the bookings' : 'the booking';
  const is = plural ? 'are' : 'is';
  if (money === null) return `Nothing is charged: ${booking} ${is} free.`;
  switch (payment) {
    case 'paid':
      return `${Who} already paid ${money}: nothing more is charged.`;
    case 'failed':
      return `The payment of ${money} failed: ${booking} cannot be confirmed and nothing is charged.`;
    case 'pending':
    case 'none':
      return `${Who} pays ${money}: ${booking} ${is} confirmed only once the payment provider reports ${money} paid; if it never clears, the time is released and nothing is owed.`;
  }
}

function cancelMoney(payment: PaymentStanding, money: string | null, Who: string, who: string): string {
  if (money === null) return 'No money is involved: the booking was free.';
  switch (payment) {
    case 'paid':
      return `${Who} paid ${money}: approving makes ${money} owed back to ${who}.`;
    case 'pending':
      return `The payment of ${money} has not cleared: nothing is owed back now; money that arrives later is flagged for a person to return.`;
    case 'failed':
      return `The payment of ${money} failed: nothing was taken and nothing is owed back.`;
    case 'none':
      return `${money} was never paid: nothing is owed back.`;
  }
}

function moveMoney(payment: PaymentStanding, money: string | null, Who: string): string {
  if (money === null) return 'No money is involved: the booking is free.';
  switch (payment) {
    case 'paid':
      return `${Who} already paid ${money}; the payment moves with the booking: nothing new is charged and nothing is owed back.`;
    case 'pending':
    case 'none':
      return `${money} is not paid yet; the booking keeps its price and moving charges nothing new.`;
    case 'failed':
      return `The payment of ${money} failed; moving charges nothing new and nothing is owed back.`;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
