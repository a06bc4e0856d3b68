// The slot cache's door. The PostgreSQL variant (LISTEN/NOTIFY between instances) loads only there.
export { MemorySlotCache } from './memory-slot-cache.js';

export const loadPgNotifySlotCache = () => import('./pg-notify-slot-cache.js');
