import { z } from 'zod';
import { DomainError } from '../../../domain/errors.js';
import { defineTool } from '../tool-kit.js';

/** Models reach for a one-step verb; this one never books and teaches the two steps instead. */
export const bookSlotTool = defineTool({
  name: 'book_slot',
  scope: 'read',
  title: 'Book a slot (explains; never books)',
  description:
    'Does NOT book anything. Holdfast books in two steps: hold_slot reserves the time for a few minutes, then confirm_booking makes it final after the user approves. Calling this returns those instructions as an error.',
  // Takes anything (a model reaching for it passes what it has) but names one property: an object
  // with none is refused by Gemini's function-declaration subset.
  input: z.looseObject({
    what: z.string().max(500).optional().describe('What you meant to book; this tool only explains how.'),
  }),
  data: z.object({}),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run() {
    throw new DomainError(
      'INVALID_STATE',
      'book_slot never books. Nothing was reserved.',
      { steps: ['find_slots', 'hold_slot', 'confirm_booking'] },
      'Call hold_slot with calendarIds, start, end and a new UUID idempotencyKey; show the hold to the user; after they approve, call confirm_booking with the booking id and version.',
    );
  },
});
