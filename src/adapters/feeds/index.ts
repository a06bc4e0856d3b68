// Calendar feeds: .ics out (ical-generator) and external busy time in (node-ical, guarded fetch).
export { icsBusyReader } from './busy-feed-reader.js';
export type { FetchLimits } from './guarded-fetch.js';
export { feedUid, renderIcs } from './ics-export.js';
