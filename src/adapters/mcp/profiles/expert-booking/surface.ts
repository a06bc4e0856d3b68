import type { ProfileSurface } from '../../profile-surface.js';

export const expertBooking: ProfileSurface = {
  instructions: () => '',
  register() {},
};
