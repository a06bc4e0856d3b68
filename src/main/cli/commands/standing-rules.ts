import type { RuleGrant } from '../../../app/approvals/standing-rules.js';
import {
  grantStandingRule,
  listStandingRules,
  revokeStandingRule,
} from '../../../app/approvals/standing-rules.js';
import type { WriteCall } from '../../../app/idempotent.js';
import { table, terminalSafe } from '../../../adapters/format/index.js';
import type { RuleAction, StandingRule } from '../../../domain/approval/standing-rule.js';
import type { Money } from '../../../domain/booking/money.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import type { Runtime } from '../../runtime/compose.js';

type Print = (text: string) => void;
type RuleOptions = NonNullable<ServerConfig['options']['rule']>;

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** "mon-fri", "sat,sun", "mon,wed-fri" → 1…7. */
function weekdaysOf(text: string): number[] {
  const days = new Set<number>();
  for (const part of text.toLowerCase().split(',')) {
    const [from, to = from] = part.trim().split('-');
    const a = WEEKDAYS.indexOf(from!);
    const b = WEEKDAYS.indexOf(to!);
    if (a === -1 || b === -1 || b < a)
      throw new UsageError(`--weekdays: mon…sun, a range or a list; got "${text}"`);
    for (let d = a; d <= b; d += 1) days.add(d + 1);
  }
  return [...days].sort();
}

/** "80.00 EUR" or "80EUR" → Money (checked again, naming the field, by the rule's validation). */
function moneyOf(text: string | undefined, flag: string): Money | null {
  if (text === undefined) return null;
  const match = /^\s*(\S+?)\s*([A-Za-z]{3})\s*$/.exec(text);
  if (!match) throw new UsageError(`${flag}: an amount and a currency, e.g. "80.00 EUR"; got "${text}"`);
  return { amount: match[1]!, currency: match[2]!.toUpperCase() };
}

function wholeOf(text: string | undefined, flag: string): number | null {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag}: a whole number; got "${text}"`);
  return Number(text);
}

/** Calendar ids or exact names (any case), or `any`. */
async function calendarsOf(runtime: Runtime, tenantId: string, text: string | undefined) {
  if (text === undefined || text.trim().toLowerCase() === 'any') return null;
  const { items } = await runtime.deps.store.read((tx) =>
    tx.calendars.list(tenantId, { offset: 0, limit: 1000 }),
  );
  return text.split(',').map((wanted) => {
    const name = wanted.trim();
    const found = items.find((c) => c.id === name || c.name.toLowerCase() === name.toLowerCase());
    if (!found) throw new UsageError(`--calendars: no calendar "${name}" in this tenant`);
    return found;
  });
}

async function grantOf(runtime: Runtime, tenantId: string, options: RuleOptions): Promise<RuleGrant> {
  const calendars = await calendarsOf(runtime, tenantId, options.calendars);
  const hours = options.hours === undefined ? null : /^(\d\d:\d\d)-(\d\d:\d\d)$/.exec(options.hours);
  if (options.hours !== undefined && !hours)
    throw new UsageError(`--hours: HH:MM-HH:MM, e.g. 09:00-17:00; got "${options.hours}"`);
  const zones = new Set(calendars?.map((c) => c.timeZone));
  // Hours, weekdays and days are read in one zone: say which when the calendars do not.
  const zoned = [options.hours, options.weekdays, options.bookingsPerDay, options.maxPerDay].some(
    (bound) => bound !== undefined,
  );
  if (zoned && options.zone === undefined && zones.size !== 1)
    throw new UsageError(
      `--zone: give the zone its hours, weekdays and days are read in (${calendars ? 'the calendars are in several' : 'any calendar can be in any zone'}), e.g. --zone Europe/Berlin`,
    );
  const customers = options.customers ?? 'any';
  if (customers !== 'any' && customers !== 'known')
    throw new UsageError(`--customers: any or known; got "${customers}"`);
  return {
    actions: (options.actions ?? 'confirm').split(',').map((a) => a.trim()) as RuleAction[],
    calendarIds: calendars?.map((c) => c.id) ?? null,
    maxPerBooking: moneyOf(options.maxPerBooking, '--max-per-booking'),
    maxPerDay: moneyOf(options.maxPerDay, '--max-per-day'),
    weekdays: options.weekdays === undefined ? [1, 2, 3, 4, 5, 6, 7] : weekdaysOf(options.weekdays),
    hours: hours ? { from: hours[1]!, to: hours[2]! } : null,
    maxPerDayCount: wholeOf(options.bookingsPerDay, '--bookings-per-day'),
    customers,
    timeZone: options.zone ?? (zones.size === 1 ? [...zones][0]! : 'UTC'),
    connectionId: options.connection ?? null,
    days: wholeOf(options.days, '--days') ?? 30,
  };
}

function ruleJson(rule: StandingRule) {
  return {
    id: rule.id,
    person: rule.personName,
    personId: rule.personId,
    connection: rule.connectionId,
    actions: rule.actions,
    calendarIds: rule.calendarIds,
    maxPerBooking: rule.maxPerBooking,
    maxPerDay: rule.maxPerDay,
    weekdays: rule.weekdays.map((d) => WEEKDAYS[d - 1]),
    hours: rule.hours,
    bookingsPerDay: rule.maxPerDayCount,
    customers: rule.customers,
    timeZone: rule.timeZone,
    createdAt: formatInstant(rule.createdAt),
    expiresAt: formatInstant(rule.expiresAt),
    revokedAt: rule.revokedAt === null ? null : formatInstant(rule.revokedAt),
    grantedVia: rule.grantedVia,
    replaced: rule.replaced,
  };
}

/** The rule in words: what it lets the person's agents do without asking. */
export function ruleInWords(rule: StandingRule): string {
  const money = (m: Money | null, per: string) => (m ? `, at most ${m.amount} ${m.currency} ${per}` : '');
  const days = rule.weekdays.length === 7 ? 'any day' : rule.weekdays.map((d) => WEEKDAYS[d - 1]).join(', ');
  return (
    `${rule.personName}'s agents${rule.connectionId ? ` (connection ${rule.connectionId})` : ''} may ` +
    `${rule.actions.join(', ')} without asking: ${rule.calendarIds ? `${rule.calendarIds.length} calendar(s)` : 'any calendar'}` +
    `${money(rule.maxPerBooking, 'a booking')}${money(rule.maxPerDay, 'a day')}` +
    `${rule.maxPerDayCount ? `, ${rule.maxPerDayCount} a day` : ''}, ${days}` +
    `${rule.hours ? ` ${rule.hours.from}-${rule.hours.to}` : ''} (${rule.timeZone})` +
    `${rule.customers === 'known' ? ', known customers only' : ''}; until ${formatInstant(rule.expiresAt)}`
  );
}

export async function standingRules(
  runtime: Runtime,
  config: ServerConfig,
  print: Print,
  call: WriteCall,
): Promise<number> {
  const { deps } = runtime;
  const [verb, target] = config.rest;
  const personOf = async (email: string) => {
    const person = await deps.store.read((tx) => tx.people.getPersonByEmail(email.toLowerCase()));
    if (!person || person.tenantId !== config.tenantId)
      throw new UsageError(`no person ${email} in tenant ${config.tenantId}`);
    return person;
  };
  if (verb === 'grant' && target) {
    const person = await personOf(target);
    const grant = await grantOf(runtime, config.tenantId, config.options.rule ?? {});
    const rule = await grantStandingRule(deps, { person, via: 'cli operator' }, grant, call);
    print(
      config.json ? JSON.stringify(ruleJson(rule), null, 2) : `Granted ${rule.id}: ${ruleInWords(rule)}.`,
    );
    return 0;
  }
  if (verb === 'list') {
    const personId = target ? (await personOf(target)).id : undefined;
    const rules = await listStandingRules(deps, config.tenantId, personId);
    const now = deps.clock.now();
    if (config.json) print(JSON.stringify(rules.map(ruleJson), null, 2));
    else if (rules.length === 0) print('No standing rules.');
    else
      print(
        table(
          ['RULE', 'STANDS', 'WHAT IT ALLOWS'],
          rules.map((r) => [
            r.id,
            r.revokedAt !== null ? 'revoked' : r.expiresAt <= now ? 'expired' : 'yes',
            terminalSafe(ruleInWords(r)),
          ]),
        ),
      );
    return 0;
  }
  if (verb === 'revoke' && target) {
    const rule = await revokeStandingRule(deps, config.tenantId, target, call);
    print(`Revoked ${rule.id}: from now on a person decides what it approved.`);
    return 0;
  }
  throw new UsageError('usage: holdfast standing-rules grant EMAIL [bounds] | list [EMAIL] | revoke ID');
}
