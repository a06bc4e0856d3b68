/** The same hours Monday to Friday, as an availability's weekly map (the seeded calendars'). */
export const weekdays = (start: string, end: string) =>
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start, end }]]));
