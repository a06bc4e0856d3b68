import type { Booking } from '../booking/booking.js';
import { maskContact } from '../booking/contact-mask.js';
import { formatInstant } from '../time/instant.js';
import type { WebhookEvent } from './webhook-events.js';

/**
 * The JSON a receiver gets: `{ id, type, createdAt, tenantId, data: { booking } }`. Contact
 * details (email, phone) are masked as for a reader without the sensitive scope, unless the
 * subscription opted into them; the owner's connection and internal flags never leave.
 */
export function webhookPayload(event: WebhookEvent, includeContact: boolean) {
  return {
    id: event.id,
    type: event.type,
    createdAt: formatInstant(event.createdAt),
    tenantId: event.tenantId,
    data: { booking: bookingForReceiver(event.booking, includeContact) },
  };
}

function bookingForReceiver(b: Booking, includeContact: boolean) {
  return {
    id: b.id,
    reference: b.reference,
    status: b.status,
    version: b.version,
    calendarIds: b.calendarIds,
    start: formatInstant(b.start),
    end: formatInstant(b.end),
    expiresAt: b.expiresAt === null ? null : formatInstant(b.expiresAt),
    createdAt: formatInstant(b.createdAt),
    updatedAt: formatInstant(b.updatedAt),
    price: b.price,
    payment: b.payment && {
      status: b.payment.status,
      paidAt: b.payment.paidAt === null ? null : formatInstant(b.payment.paidAt),
      reconciliationRequired: b.payment.reconciliationRequired ?? false,
    },
    customer: b.customer === null ? null : includeContact ? b.customer : maskContact(b.customer),
    label: b.label,
    externalKeys: b.externalKeys,
  };
}
