export { systemClock } from './system-clock.js';
/** Development only: imported when --dev-clock is given. */
export const loadOffsetFileClock = () => import('./offset-file-clock.js');
