import type { ProfileSurface } from '../../profile-surface.js';

export const agentAccess: ProfileSurface = {
  instructions: () => '',
  register() {},
};
