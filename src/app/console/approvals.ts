import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import { maskContact } from '../../domain/booking/contact-mask.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { ApprovalView } from '../approvals/approvals.js';
import type { AppDeps } from '../deps.js';
import { describeIntent, seenBy } from '../approvals/approvals.js';
import { loadBooking } from '../booking/snapshot.js';
import { effectiveApprovalStatus } from '../../domain/approval/approval.js';
import type { Approval } from '../../domain/approval/approval.js';

/** An approval as the console shows it: the intent in words, and who asked through what. */
export interface ApprovalCard extends ApprovalView {
  readonly requester: {
    readonly email: string | null;
    /** The asking connection as a person names it: "Claude on Olga's laptop — token of Olga Petrova". */
    readonly asker: string;
    /** The connection exactly as recorded (token id, client name and version), for the details. */
    readonly connection: string;
  };
  /** Who decided and how: "Olga Petrova (owner), with a passkey"; null while undecided. */
  readonly decider: string | null;
}

const METHOD_WORDS: Readonly<Record<string, string>> = {
  passkey: 'with a passkey',
  password: 'with a password',
};

/** The decision's recorder in words: decidedBy is "usr_… email (method)", or an operator's name. */
export async function deciderOf(tx: StoreTx, decidedBy: string | null): Promise<string | null> {
  if (decidedBy === null) return null;
  const person = /^(\S+) (\S+@\S+) \(([^)]+)\)$/.exec(decidedBy);
  if (!person) {
    if (decidedBy === 'operator-cli') return 'an operator, on the command line';
    // agent-access's direct policy: the connection's own write, allowed by the person's choice of policy.
    if (decidedBy.startsWith('policy:direct'))
      return 'the connection’s direct write policy (no one was asked)';
    return decidedBy;
  }
  const [, id, email, method] = person;
  const known = await tx.people.getPerson(id!);
  const name = known?.displayName || email!;
  const role = known ? ` (${known.role})` : '';
  return `${name}${role}, ${METHOD_WORDS[method!] ?? `signed in with ${method}`}`;
}

/** "tok_… \"Claude on Olga's laptop\" · client 1.0" -> "Claude on Olga's laptop — token of Olga Petrova". */
export function askerOf(clientId: string, person: { displayName: string; email: string } | null): string {
  const named = /"([^"]+)"/.exec(clientId)?.[1];
  const who = person ? person.displayName || person.email : null;
  if (named) return who ? `${named} — token of ${who}` : named;
  const first = clientId.split(' · ')[0] ?? clientId;
  const client = /^(tok|grant)_/.test(first) ? 'an unnamed connection' : first;
  return who ? `${client} — for ${who}` : client;
}

/**
 * The connection a call came through, in words: the token's or app's name and the client it
 * declared ("test agent, from holdfast-test-modern 1.0.0"); a person's page session as such.
 */
export function connectionWords(clientId: string): string {
  const page = /^session \((\w+)\)$/.exec(clientId)?.[1];
  if (page) return `a console page, ${METHOD_WORDS[page] ?? `signed in with ${page}`}`;
  const named = /"([^"]+)"/.exec(clientId)?.[1];
  const declared = clientId.split(' · ')[1];
  const client = clientId.split(' · ')[0] ?? clientId;
  const base = named ?? (client.startsWith('tok_') || client.startsWith('grant_') ? 'an agent' : client);
  return declared && declared !== 'undeclared client' ? `${base}, from ${declared}` : base;
}

/** Who asked for an approval, in words, as the CLI and the pages say it. */
export async function askerOfApproval(deps: AppDeps, approval: Approval): Promise<string> {
  const person = await deps.store.read((tx) => tx.people.getPerson(approval.subject));
  return askerOf(approval.clientId, person && person.tenantId === approval.tenantId ? person : null);
}

const RECENT = 20;

async function cardOf(deps: AppDeps, tx: StoreTx, approval: Approval, viewer: Person): Promise<ApprovalCard> {
  const booking = await loadBooking(tx, approval.tenantId, approval.bookingId);
  const person = await tx.people.getPerson(approval.subject);
  const summary = await describeIntent(tx, approval.tenantId, approval.intent, booking);
  return {
    approval,
    status: effectiveApprovalStatus(approval, deps.clock.now()),
    // Viewers decide nothing: they see contact data masked, as on the bookings pages.
    summary:
      summary.customer && !mayApprove(viewer)
        ? { ...summary, customer: maskContact(summary.customer) }
        : summary,
    requester: {
      email: person?.email ?? null,
      asker: askerOf(approval.clientId, person && person.tenantId === viewer.tenantId ? person : null),
      connection: approval.clientId,
    },
    decider: await deciderOf(tx, approval.decidedBy),
  };
}

/** The console's queue: waiting (oldest first, they expire first), lapsed or stale, and decided. */
export interface ApprovalQueue {
  readonly pending: ApprovalCard[];
  /** Nobody decided in time, or the booking moved on while it waited: nothing to decide any more. */
  readonly lapsed: ApprovalCard[];
  readonly recent: ApprovalCard[];
}

export async function approvalQueue(deps: AppDeps, person: Person): Promise<ApprovalQueue> {
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    const all = await tx.approvals.list(person.tenantId);
    const open = all
      .filter((a) => effectiveApprovalStatus(a, now) === 'PENDING')
      .sort((a, b) => a.expiresAt - b.expiresAt);
    const openCards = await Promise.all(open.map((a) => cardOf(deps, tx, a, person)));
    const lapsedUndecided = (a: Approval) =>
      a.decidedAt === null && effectiveApprovalStatus(a, now) === 'EXPIRED';
    const decided = all
      .filter((a) => effectiveApprovalStatus(a, now) !== 'PENDING' && !lapsedUndecided(a))
      .slice(0, RECENT);
    const undecided = all.filter(lapsedUndecided).slice(0, RECENT);
    return {
      pending: openCards.filter((card) => card.summary.stale === null),
      lapsed: [
        ...openCards.filter((card) => card.summary.stale !== null),
        ...(await Promise.all(undecided.map((a) => cardOf(deps, tx, a, person)))),
      ],
      recent: await Promise.all(decided.map((a) => cardOf(deps, tx, a, person))),
    };
  });
}

/** One approval of the person's tenant, or null (another tenant's is as unknown as a made-up id). */
export async function consoleApproval(
  deps: AppDeps,
  person: Person,
  approvalId: string,
): Promise<ApprovalCard | null> {
  // Opening an approval's card is a person looking at it: its hold is kept for them.
  return deps.store.write(async (tx) => {
    const approval = await tx.approvals.get(person.tenantId, approvalId);
    return approval && cardOf(deps, tx, await seenBy(deps, tx, approval, person), person);
  });
}
