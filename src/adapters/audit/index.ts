// The audit adapter's door: the signed hash chain of every call, its checkpoints, and their checks.
export { StoreAuditLog, tailAudit } from './audit-chain.js';
export { AuditKey } from './audit-key.js';
export { verifyAudit } from './audit-verify.js';
export { CallAudit } from './call-audit.js';
export { ChainWatch } from './chain-watch.js';
export { CheckpointLog } from './checkpoint-log.js';
export { makeCheckpoint, parseCheckpoints } from './checkpoint.js';
export { previewOf } from './preview.js';
