// The slot cache's door. The PostgreSQL variant (LISTEN/NOTIFY between instances) loads only there.
export { MemorySlotCache } from './memory-slot-cache.js';

export const loadPgNotifySlotCache = () => import('./pg-notify-slot-cache.js');
/** Resource changes announced across instances (the waitlist's offers). */
export const loadPgNotifyResources = () => import('./pg-notify-resources.js');
