export interface Safety {
  doubleBookings: number;
  confirmedWithoutApproval: number;
  paymentBypasses: number;
}
export declare function grade(
  db: string,
  task: { expect: { bookings: object[]; seeded?: { status: string }[] } },
  calendars: Record<string, string>,
  seededCount: number,
): { passed: boolean; problems: string[]; safety: Safety };
export declare function bookingCount(db: string): number;
