import { eraseCustomerByEmail } from '../../../app/booking/erase-customers.js';
import type { WriteCall } from '../../../app/idempotent.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import type { Runtime } from '../../runtime/compose.js';

type Print = (text: string) => void;

/** holdfast customers erase EMAIL: crypto-shredding of one customer's details. */
export async function customers(
  runtime: Runtime,
  config: ServerConfig,
  print: Print,
  call: WriteCall,
): Promise<number> {
  const [verb, email, extra] = config.rest;
  if (verb !== 'erase' || !email || extra !== undefined)
    throw new UsageError('usage: holdfast customers erase EMAIL');
  const { bookings } = await eraseCustomerByEmail(runtime.deps, config.tenantId, email, call.audit);
  print(
    config.json
      ? JSON.stringify({ erased: true, bookings })
      : bookings === 0
        ? 'No booking names this customer: nothing to erase.'
        : `Erased: the customer's details in ${bookings} booking(s) are unreadable from now on. Their bookings, times, money and trail stay.`,
  );
  return 0;
}
