/** The resource templates Holdfast serves; tools and completion name them the same way. */
export const CALENDAR_TEMPLATE = 'holdfast://calendars/{id}';
export const BOOKING_TEMPLATE = 'holdfast://bookings/{id}';
export const RECEIPT_TEMPLATE = 'holdfast://bookings/{id}/receipt';
export const WAITLIST_TEMPLATE = 'holdfast://waitlist/{id}';

export const calendarUri = (id: string) => `holdfast://calendars/${id}`;
export const bookingUri = (id: string) => `holdfast://bookings/${id}`;
export const receiptUri = (bookingId: string) => `holdfast://bookings/${bookingId}/receipt`;
export const waitlistUri = (entryId: string) => `holdfast://waitlist/${entryId}`;
