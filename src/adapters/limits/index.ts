export { FlexibleRateLimits } from './flexible-rate-limits.js';
