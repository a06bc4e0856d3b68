import type { Booking } from '../../src/domain/booking/booking.js';

/** A one-hour hold on `cal_a`, made at `at`, starting an hour later, lapsing five minutes after. */
export function heldBooking(at: number, fields: Partial<Booking> = {}): Booking {
  return {
    id: 'bk_1',
    tenantId: 't',
    reference: 'HF-ABC123',
    calendarIds: ['cal_a'],
    start: at + 3_600_000,
    end: at + 7_200_000,
    status: 'HELD',
    version: 1,
    createdAt: at,
    updatedAt: at,
    expiresAt: at + 300_000,
    customer: null,
    label: null,
    price: null,
    payment: null,
    owner: { subject: 's', clientId: 'c', connectionId: 'k' },
    externalKeys: {},
    paymentFollowUp: false,
    ...fields,
  };
}
