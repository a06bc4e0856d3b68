import { z } from 'zod';
import { releaseHold } from '../../../app/booking/release-hold.js';
import { bookingIdInput, bookingOut, expectedVersion, idempotencyKey } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

export const releaseHoldTool = defineTool({
  name: 'release_hold',
  scope: 'draft',
  title: 'Release a hold',
  description:
    'Gives back the time of a HELD booking you no longer want (status becomes RELEASED). Pass the version you last read and a fresh UUID idempotencyKey.',
  kind: 'write',
  input: z.strictObject({ bookingId: bookingIdInput, expectedVersion, idempotencyKey }),
  data: z.object({ booking: bookingOut }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(ctx, input, call) {
    const { deps, principal } = ctx;
    const outcome = await releaseHold(deps, principal, input, call);
    return { data: { booking: bookingView(outcome.value, ctx) }, replayed: outcome.replayed };
  },
});
