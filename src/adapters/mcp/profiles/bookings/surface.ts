import type { ProfileSurface } from '../../profile-surface.js';

export const bookings: ProfileSurface = {
  instructions: () => '',
  register() {},
};
