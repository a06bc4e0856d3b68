import type { ProfileSurface } from '../../profile-surface.js';
import { registerTool } from '../../tool-kit.js';
import { deltatToolset } from './tools.js';

const instructions = `This calendar never double-books, and it has no one-step booking verb. Book in three steps:
find_slots (times when ALL the calendars you name are free) -> hold_slot (holds the time for a few minutes; returns hold_ids)
-> commit_hold (books every hold at once, when the booking is agreed). Release a hold you do not need with release_hold.
A taken time is refused with alternatives that are NOT reserved: offer one, then hold it before telling anyone it is theirs.
Errors start with their type: CONFLICT (choose another time), EXPIRED (hold again), INVALID, NOT_FOUND.
Times are RFC 3339 with an offset; a time without one is refused.`;

/** deltat's nine tools, as @open-deltat/mcp names and shapes them (seed 003). */
export const deltat: ProfileSurface = {
  instructions: () => instructions,
  register(server, ctx, identity) {
    for (const tool of deltatToolset(ctx.profile.counterOffers))
      registerTool(server, ctx, tool as Parameters<typeof registerTool>[2], identity);
  },
};
