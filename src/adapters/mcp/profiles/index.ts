// The five source systems as themselves, each a thin surface over the same use cases (docs/contracts.md).
export { bookings } from './bookings/surface.js';
export { deltat } from './deltat/surface.js';
export { expertBooking } from './expert-booking/surface.js';
export { agentAccess } from './agent-access/surface.js';
