import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ChangeBookingInput } from '../../../app/change-booking.js';
import { cancelBooking, confirmBooking, releaseHold } from '../../../app/change-booking.js';
import type { AppDeps } from '../../../app/deps.js';
import type { Outcome } from '../../../app/idempotent.js';
import type { BookingSnapshot } from '../../../app/snapshot.js';
import type { Principal } from '../../../domain/calendar.js';
import { bookingIdInput, bookingOut, expectedVersion, idempotencyKey } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

type ChangeUseCase = (
  deps: AppDeps,
  principal: Principal,
  input: ChangeBookingInput,
) => Promise<Outcome<BookingSnapshot>>;

/** The three tools that move an existing booking share their shape: id, version, key in; booking out. */
function changeTool(
  name: string,
  title: string,
  description: string,
  annotations: ToolAnnotations,
  useCase: ChangeUseCase,
) {
  return defineTool({
    name,
    title,
    description,
    input: z.strictObject({ bookingId: bookingIdInput, expectedVersion, idempotencyKey }),
    data: z.object({ booking: bookingOut }),
    annotations: { readOnlyHint: false, idempotentHint: true, ...annotations },
    async run({ deps, principal }, input) {
      const outcome = await useCase(deps, principal, input);
      return { data: { booking: bookingView(outcome.value, deps.clock.now()) }, replayed: outcome.replayed };
    },
  });
}

export const releaseHoldTool = changeTool(
  'release_hold',
  'Release a hold',
  'Gives back the time of a HELD booking you no longer want (status becomes RELEASED). Pass the version you last read and a fresh UUID idempotencyKey.',
  { destructiveHint: true },
  releaseHold,
);

export const confirmBookingTool = changeTool(
  'confirm_booking',
  'Confirm a held booking',
  'Turns a HELD booking into CONFIRMED before its hold expires. Only call after the user approved this exact booking. Pass the version you last read and a fresh UUID idempotencyKey.',
  { destructiveHint: false },
  confirmBooking,
);

export const cancelBookingTool = changeTool(
  'cancel_booking',
  'Cancel a confirmed booking',
  'Cancels a CONFIRMED booking and frees its time. Only call after the user asked for it. Pass the version you last read and a fresh UUID idempotencyKey. (For a HELD booking use release_hold.)',
  { destructiveHint: true },
  cancelBooking,
);
