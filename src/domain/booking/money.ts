import { invalidArgument } from '../errors.js';

/** A price as a decimal string and an ISO 4217 code; never a float. */
export interface Money {
  readonly amount: string;
  readonly currency: string;
}

const AMOUNT = /^(0|[1-9]\d{0,11})(\.\d{1,4})?$/;
const CURRENCY = /^[A-Z]{3}$/;

export function validateMoney(money: Money, field: string): void {
  if (!AMOUNT.test(money.amount)) {
    throw invalidArgument(`${field}.amount`, 'must be a non-negative decimal string such as "500.00"');
  }
  if (!CURRENCY.test(money.currency))
    throw invalidArgument(`${field}.currency`, 'must be an ISO 4217 code such as "EUR"');
}

function scaleOf(amount: string): number {
  return amount.split('.')[1]?.length ?? 0;
}

function toUnits(amount: string, scale: number): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole! + fraction.padEnd(scale, '0'));
}

function fromUnits(units: bigint, scale: number): string {
  if (scale === 0) return units.toString();
  const digits = units.toString().padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Sum of prices in one currency, exact, keeping the widest decimal scale. Null when nothing is priced. */
export function sumPrices(prices: readonly (Money | null)[]): Money | null {
  const priced = prices.filter((p): p is Money => p !== null);
  if (priced.length === 0) return null;
  const currency = priced[0]!.currency;
  if (priced.some((p) => p.currency !== currency)) {
    throw invalidArgument(
      'calendarIds',
      'calendars priced in different currencies cannot be booked together',
    );
  }
  const scale = Math.max(...priced.map((p) => scaleOf(p.amount)));
  const total = priced.reduce((sum, p) => sum + toUnits(p.amount, scale), 0n);
  return { amount: fromUnits(total, scale), currency };
}

/** Whether two prices are the same sum of money ("500" and "500.00" are). */
export function samePrice(a: Money | null, b: Money | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.currency !== b.currency) return false;
  const scale = Math.max(scaleOf(a.amount), scaleOf(b.amount));
  return toUnits(a.amount, scale) === toUnits(b.amount, scale);
}
