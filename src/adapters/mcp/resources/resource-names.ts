/** The resource templates Holdfast serves; tools and completion name them the same way. */
export const CALENDAR_TEMPLATE = 'holdfast://calendars/{id}';
export const BOOKING_TEMPLATE = 'holdfast://bookings/{id}';

export const calendarUri = (id: string) => `holdfast://calendars/${id}`;
export const bookingUri = (id: string) => `holdfast://bookings/${id}`;
