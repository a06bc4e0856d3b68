import type { Customer } from './booking.js';

/** The customer with email and phone cut to a hint, for readers not cleared for contact data. */
export function maskContact(customer: Customer): Customer {
  const masked = { ...customer };
  // Stored customers are typed at the edge; a stray null (an older row, another writer) masks as absent.
  if (typeof masked.email === 'string') masked.email = masked.email.replace(/^(.).*(@.*)$/, '$1***$2');
  else delete masked.email;
  if (typeof masked.phone === 'string') masked.phone = `***${masked.phone.slice(-2)}`;
  else delete masked.phone;
  return masked;
}
