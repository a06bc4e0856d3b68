/** Versioned schema steps; append only, never edit a released step. */
import type { Migration } from '../migration.js';

export type { Migration } from '../migration.js';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export const sqliteMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'core schema: calendars, bookings, allocations, idempotency',
    sql: `
CREATE TABLE calendars (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  time_zone TEXT NOT NULL,
  price_amount TEXT,
  price_currency TEXT,
  availability TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, id)
) STRICT;

CREATE TABLE bookings (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  reference TEXT NOT NULL,
  calendar_ids TEXT NOT NULL,
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('HELD','CONFIRMED','CANCELLED','EXPIRED','RELEASED','PAYMENT_FAILED','PAYMENT_CLOSED')),
  version INTEGER NOT NULL CHECK (version >= 1),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER,
  customer TEXT,
  label TEXT,
  price_amount TEXT,
  price_currency TEXT,
  payment TEXT,
  owner_subject TEXT NOT NULL,
  owner_client TEXT NOT NULL,
  external_keys TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id),
  CHECK (end_at > start_at)
) STRICT;
CREATE UNIQUE INDEX bookings_reference ON bookings (tenant_id, reference);
CREATE INDEX bookings_start ON bookings (tenant_id, start_at, id);
CREATE INDEX bookings_lapsing ON bookings (expires_at) WHERE status = 'HELD';
CREATE INDEX bookings_tenant_lapsing ON bookings (tenant_id, expires_at) WHERE status = 'HELD';

-- One row per (booking, calendar). Only active rows occupy time.
CREATE TABLE allocations (
  tenant_id TEXT NOT NULL,
  booking_id TEXT NOT NULL,
  calendar_id TEXT NOT NULL,
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL,
  active INTEGER NOT NULL CHECK (active IN (0, 1)),
  PRIMARY KEY (tenant_id, booking_id, calendar_id),
  FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id),
  FOREIGN KEY (tenant_id, calendar_id) REFERENCES calendars (tenant_id, id),
  CHECK (end_at > start_at AND end_at - start_at <= ${WEEK_MS})
) STRICT;
CREATE INDEX allocations_active ON allocations (tenant_id, calendar_id, start_at) WHERE active = 1;

-- The engine, not the application, refuses two overlapping active allocations on one calendar.
-- Allocations last at most a week (CHECK above), which bounds the index range scanned.
CREATE TRIGGER allocations_no_overlap_insert BEFORE INSERT ON allocations
WHEN NEW.active = 1
BEGIN
  SELECT RAISE(ABORT, 'HOLDFAST_OVERLAP') WHERE EXISTS (
    SELECT 1 FROM allocations a
    WHERE a.tenant_id = NEW.tenant_id AND a.calendar_id = NEW.calendar_id AND a.active = 1
      AND a.start_at < NEW.end_at AND a.start_at > NEW.start_at - ${WEEK_MS} AND a.end_at > NEW.start_at);
END;

CREATE TRIGGER allocations_no_overlap_update BEFORE UPDATE ON allocations
WHEN NEW.active = 1
BEGIN
  SELECT RAISE(ABORT, 'HOLDFAST_OVERLAP') WHERE EXISTS (
    SELECT 1 FROM allocations a
    WHERE a.tenant_id = NEW.tenant_id AND a.calendar_id = NEW.calendar_id AND a.active = 1
      AND a.rowid <> OLD.rowid
      AND a.start_at < NEW.end_at AND a.start_at > NEW.start_at - ${WEEK_MS} AND a.end_at > NEW.start_at);
END;

CREATE TABLE idempotency (
  tenant_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  tool TEXT NOT NULL,
  key TEXT NOT NULL,
  arguments_digest TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, subject, tool, key)
) STRICT;
CREATE INDEX idempotency_expiry ON idempotency (expires_at);
`,
  },
  {
    version: 2,
    name: 'approvals and host attestations',
    sql: `
CREATE TABLE approvals (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  subject TEXT NOT NULL,
  client_id TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('confirm_booking', 'cancel_booking')),
  booking_id TEXT NOT NULL,
  intent TEXT NOT NULL,
  intent_hash TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('PENDING','APPROVED','DENIED','EXPIRED','USED')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  decided_at INTEGER,
  decided_by TEXT,
  burned_reason TEXT,
  page_token_hash TEXT,
  PRIMARY KEY (tenant_id, id)
) STRICT;
CREATE UNIQUE INDEX approvals_page_token ON approvals (page_token_hash) WHERE page_token_hash IS NOT NULL;
CREATE INDEX approvals_status ON approvals (tenant_id, status, created_at);

-- Host-attested approval ids, so a replayed attestation is refused.
CREATE TABLE host_attestations (
  tenant_id TEXT NOT NULL,
  approval_id TEXT NOT NULL,
  used_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, approval_id)
) STRICT;
`,
  },
  {
    version: 3,
    name: 'payment simulator and hash-chained audit log',
    sql: `
-- The local payment simulator's state (operators without a provider, the demo, tests).
CREATE TABLE simulated_payments (
  booking_id TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('PENDING','PAID','FAILED','CLOSED')),
  amount TEXT,
  currency TEXT,
  paid_at INTEGER,
  updated_at INTEGER NOT NULL
) STRICT;

-- Append-only; each record carries the hash of the one before it.
CREATE TABLE audit_log (
  seq INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  tenant_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  client_id TEXT NOT NULL,
  transport TEXT NOT NULL,
  tool TEXT NOT NULL,
  kind TEXT NOT NULL,
  outcome TEXT NOT NULL,
  error_code TEXT,
  blocked_reason TEXT,
  arguments_digest TEXT NOT NULL,
  preview TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  duration_ms REAL NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
) STRICT;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
`,
  },
  {
    version: 4,
    name: 'keyed audit chain with pending entries; payment follow-up of lapsed priced holds',
    sql: `
-- Entries are written in the transaction of the call's effect, then linked into the chain by the sealer.
CREATE TABLE audit_pending (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  tenant_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  client_id TEXT NOT NULL,
  transport TEXT NOT NULL,
  tool TEXT NOT NULL,
  kind TEXT NOT NULL,
  outcome TEXT NOT NULL,
  error_code TEXT,
  blocked_reason TEXT,
  arguments_digest TEXT NOT NULL,
  preview TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  duration_ms REAL NOT NULL,
  operation_id TEXT NOT NULL,
  -- Keyed when written, checked when sealed: an entry forged or edited while pending is caught.
  entry_mac TEXT NOT NULL
) STRICT;
-- Records before this version stay on the unkeyed sha256 chain (1); new ones are HMAC-keyed (2).
ALTER TABLE audit_log ADD COLUMN mac_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE audit_log ADD COLUMN key_id TEXT;
ALTER TABLE audit_log ADD COLUMN operation_id TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings ADD COLUMN payment_follow_up INTEGER NOT NULL DEFAULT 0 CHECK (payment_follow_up IN (0, 1));
CREATE INDEX bookings_payment_follow_up ON bookings (updated_at) WHERE payment_follow_up = 1;
`,
  },
  {
    version: 5,
    name: 'calendar versions',
    sql: `
-- Grows with every availability change: a hold planned on a cached calendar is checked against it.
ALTER TABLE calendars ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
`,
  },
  {
    version: 6,
    name: 'tenants, people, sessions, setup links, access tokens, hosts; bookings name their connection',
    sql: `
CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  limits TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE people (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  email TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'approver', 'viewer')),
  password_hash TEXT,
  disabled_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX people_tenant ON people (tenant_id);
-- One-time links to set a password (or create the first owner); only their digest is kept.
CREATE TABLE setup_links (
  secret_hash TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  -- Null: the link creates the tenant's first owner.
  person_id TEXT REFERENCES people (id),
  expires_at INTEGER NOT NULL,
  spent_at INTEGER
) STRICT;
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  person_id TEXT NOT NULL REFERENCES people (id),
  method TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  csrf_secret TEXT NOT NULL
) STRICT;
CREATE INDEX sessions_person ON sessions (person_id);
CREATE TABLE access_tokens (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  person_id TEXT NOT NULL REFERENCES people (id),
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,
  write_policy TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER
) STRICT;
CREATE TABLE hosts (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  name TEXT NOT NULL,
  public_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
) STRICT;
-- Which connection made a booking; the person is owner_subject. Active holds are counted per both.
ALTER TABLE bookings ADD COLUMN owner_connection TEXT NOT NULL DEFAULT '';
CREATE INDEX bookings_held_by_owner ON bookings (tenant_id, owner_subject) WHERE status = 'HELD';
`,
  },
  {
    version: 7,
    name: 'passkeys and the challenges of passkey ceremonies under way',
    sql: `
CREATE TABLE passkeys (
  -- The credential id the authenticator chose (base64url).
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  person_id TEXT NOT NULL REFERENCES people (id),
  name TEXT NOT NULL,
  public_key TEXT NOT NULL,
  counter INTEGER NOT NULL,
  transports TEXT NOT NULL,
  rp_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
) STRICT;
CREATE INDEX passkeys_person ON passkeys (person_id);
-- One row per ceremony under way; the answer spends it, expired ones are swept on insert.
CREATE TABLE passkey_challenges (
  challenge TEXT PRIMARY KEY,
  purpose TEXT NOT NULL CHECK (purpose IN ('register', 'sign-in')),
  person_id TEXT,
  rp_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);
`,
  },
  {
    version: 8,
    name: "the authorization server: its records, sealed signing keys, and people's OAuth connections",
    sql: `
-- Whatever oidc-provider keeps (codes, refresh tokens, clients, grants, interactions), as its JSON.
CREATE TABLE oauth_records (
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at INTEGER,
  consumed_at INTEGER,
  PRIMARY KEY (kind, id)
) STRICT;
CREATE INDEX oauth_records_grant ON oauth_records (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_records_uid ON oauth_records (kind, uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_records_expiry ON oauth_records (expires_at) WHERE expires_at IS NOT NULL;
-- Private keys sealed (AES-256-GCM) with the installation's secret, shared by every instance.
CREATE TABLE oauth_signing_keys (
  kid TEXT PRIMARY KEY,
  sealed TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  retired_at INTEGER
) STRICT;
CREATE TABLE oauth_connections (
  grant_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  person_id TEXT NOT NULL REFERENCES people (id),
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  redirect_host TEXT NOT NULL,
  scopes TEXT NOT NULL,
  write_policy TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER
) STRICT;
CREATE INDEX oauth_connections_person ON oauth_connections (tenant_id, person_id);
`,
  },
  {
    version: 9,
    name: "the console's activity pages: a tenant's audit records, and a person's, newest first",
    sql: `
-- Keyset pages of one tenant's trail (an owner's view), and of one person's (everyone else's).
CREATE INDEX audit_log_tenant ON audit_log (tenant_id, seq);
CREATE INDEX audit_log_tenant_subject ON audit_log (tenant_id, subject, seq);
`,
  },
  {
    version: 10,
    name: 'a tenant default write policy for new agent connections',
    sql: `
-- What a new token or OAuth connection starts with; people may still pick another within their role.
ALTER TABLE tenants ADD COLUMN default_write_policy TEXT NOT NULL DEFAULT 'draft'
  CHECK (default_write_policy IN ('readonly', 'draft', 'attested', 'direct'));
`,
  },
  {
    version: 11,
    name: 'the reservation inbox: messages, conversations, submitted batches, tasks, business keys, ingest tokens',
    sql: `
CREATE TABLE inbox_conversations (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  channel TEXT NOT NULL,
  external_id TEXT NOT NULL,
  subject TEXT,
  created_at INTEGER NOT NULL,
  last_received_at INTEGER NOT NULL,
  UNIQUE (tenant_id, provider, channel, external_id)
);
CREATE INDEX inbox_conversations_key ON inbox_conversations (tenant_id, external_id);
CREATE INDEX inbox_conversations_recent ON inbox_conversations (tenant_id, last_received_at);
-- Ingesting the same provider message twice finds it here and adds nothing.
CREATE TABLE inbox_messages (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  channel TEXT NOT NULL,
  external_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL REFERENCES inbox_conversations (id),
  rfc_message_id TEXT,
  in_reply_to TEXT,
  refs TEXT NOT NULL,
  subject TEXT,
  from_addr TEXT,
  cc TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  text_body TEXT NOT NULL,
  html_sanitized TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (tenant_id, provider, channel, external_id)
);
CREATE INDEX inbox_messages_external ON inbox_messages (tenant_id, external_id);
CREATE INDEX inbox_messages_rfc ON inbox_messages (tenant_id, rfc_message_id);
CREATE INDEX inbox_messages_conversation ON inbox_messages (tenant_id, conversation_id, received_at);
-- The bytes as received, kept once for the record; nothing reads them back.
CREATE TABLE inbox_raw_bodies (
  message_id TEXT PRIMARY KEY REFERENCES inbox_messages (id),
  tenant_id TEXT NOT NULL,
  raw BLOB NOT NULL
);
CREATE TABLE inbox_body_reads (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  reader TEXT NOT NULL,
  via TEXT NOT NULL,
  read_at INTEGER NOT NULL
);
CREATE INDEX inbox_body_reads_message ON inbox_body_reads (tenant_id, message_id, read_at);
-- One batch per source message: a second submission replays the first.
CREATE TABLE inbox_batches (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  message_id TEXT NOT NULL REFERENCES inbox_messages (id),
  shape TEXT NOT NULL,
  result TEXT NOT NULL,
  submitted_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (tenant_id, message_id)
);
CREATE TABLE inbox_tasks (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  batch_id TEXT NOT NULL REFERENCES inbox_batches (id),
  message_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  transition_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('task', 'adapter_contract_error')),
  source_event_index INTEGER NOT NULL,
  result_type TEXT NOT NULL,
  event_type TEXT,
  task_type TEXT,
  status TEXT NOT NULL CHECK (status IN ('PENDING_CONFIRMATION', 'CONFIRMING', 'AWAITING_APPROVAL', 'CONFIRMED', 'REJECTED', 'CONTRACT_ERROR')),
  object_id TEXT,
  approval_id TEXT,
  detail TEXT NOT NULL,
  decided_by TEXT,
  decided_at INTEGER,
  note TEXT,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  group_code TEXT,
  confirmation_number TEXT,
  reservation_no TEXT
);
CREATE INDEX inbox_tasks_conversation ON inbox_tasks (tenant_id, conversation_id);
CREATE INDEX inbox_tasks_object ON inbox_tasks (tenant_id, object_id);
-- A confirmation or reservation number names one booking in a tenant; a group code many.
CREATE TABLE booking_keys (
  tenant_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('confirmation', 'group', 'reservation')),
  value TEXT NOT NULL,
  booking_id TEXT NOT NULL,
  PRIMARY KEY (tenant_id, kind, value, booking_id)
);
CREATE UNIQUE INDEX booking_keys_one_booking ON booking_keys (tenant_id, kind, value) WHERE kind <> 'group';
CREATE INDEX booking_keys_booking ON booking_keys (tenant_id, booking_id);
CREATE TABLE inbox_ingest_tokens (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  name TEXT NOT NULL,
  digest TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  last_used_at INTEGER
);
-- Which tool contract a tenant's agents get ('inherit': the server's --profile), and tools switched off.
ALTER TABLE tenants ADD COLUMN tool_profile TEXT NOT NULL DEFAULT 'inherit'
  CHECK (tool_profile IN ('inherit', 'hotel-ops', 'standard'));
ALTER TABLE tenants ADD COLUMN disabled_tools TEXT NOT NULL DEFAULT '[]';
`,
  },
  {
    version: 12,
    name: "how a tenant's agents see the tools: flat, or the progressive catalog",
    sql: `
ALTER TABLE tenants ADD COLUMN tool_mode TEXT NOT NULL DEFAULT 'inherit'
  CHECK (tool_mode IN ('inherit', 'flat', 'catalog'));
`,
  },
  {
    version: 13,
    name: 'booking rules per calendar, and the customer key per-customer limits count by',
    sql: `
-- NULL: every rule at its default (see domain/availability/booking-rules.ts).
ALTER TABLE calendars ADD COLUMN booking_rules TEXT;
ALTER TABLE bookings ADD COLUMN customer_key TEXT;
`,
  },
  {
    version: 14,
    name: 'capacity: a calendar takes up to N overlapping bookings, each allocation in one seat lane',
    sql: `
ALTER TABLE allocations ADD COLUMN lane INTEGER NOT NULL DEFAULT 0 CHECK (lane >= 0 AND lane < 1000);
-- Non-overlap now holds per lane: a calendar of capacity N has lanes 0..N-1.
DROP TRIGGER allocations_no_overlap_insert;
DROP TRIGGER allocations_no_overlap_update;
CREATE TRIGGER allocations_no_overlap_insert BEFORE INSERT ON allocations
WHEN NEW.active = 1
BEGIN
  SELECT RAISE(ABORT, 'HOLDFAST_OVERLAP') WHERE EXISTS (
    SELECT 1 FROM allocations a
    WHERE a.tenant_id = NEW.tenant_id AND a.calendar_id = NEW.calendar_id AND a.active = 1 AND a.lane = NEW.lane
      AND a.start_at < NEW.end_at AND a.start_at > NEW.start_at - ${WEEK_MS} AND a.end_at > NEW.start_at);
END;
CREATE TRIGGER allocations_no_overlap_update BEFORE UPDATE ON allocations
WHEN NEW.active = 1
BEGIN
  SELECT RAISE(ABORT, 'HOLDFAST_OVERLAP') WHERE EXISTS (
    SELECT 1 FROM allocations a
    WHERE a.tenant_id = NEW.tenant_id AND a.calendar_id = NEW.calendar_id AND a.active = 1 AND a.lane = NEW.lane
      AND a.rowid <> OLD.rowid
      AND a.start_at < NEW.end_at AND a.start_at > NEW.start_at - ${WEEK_MS} AND a.end_at > NEW.start_at);
END;
`,
  },
  {
    version: 15,
    name: 'calendar feeds: published feed links, subscriptions to external busy time, and the busy time itself',
    sql: `
-- A private .ics address of a calendar's bookings; the secret is kept only as its hash.
CREATE TABLE feed_links (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  calendar_id TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  FOREIGN KEY (tenant_id, calendar_id) REFERENCES calendars (tenant_id, id)
) STRICT;
CREATE INDEX feed_links_tenant ON feed_links (tenant_id, created_at);
CREATE TABLE feed_subscriptions (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  calendar_id TEXT NOT NULL,
  source TEXT NOT NULL,
  every_ms INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  next_run_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  last_ok_at INTEGER,
  last_error TEXT,
  last_error_at INTEGER,
  busy_count INTEGER NOT NULL DEFAULT 0,
  FOREIGN KEY (tenant_id, calendar_id) REFERENCES calendars (tenant_id, id)
) STRICT;
CREATE INDEX feed_subscriptions_due ON feed_subscriptions (next_run_at);
CREATE INDEX feed_subscriptions_tenant ON feed_subscriptions (tenant_id, created_at);
-- Busy time of external calendars, replaced per subscription on each refresh; pieces of at most a week.
CREATE TABLE external_busy (
  tenant_id TEXT NOT NULL,
  calendar_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL,
  CHECK (end_at > start_at AND end_at - start_at <= ${WEEK_MS})
) STRICT;
CREATE INDEX external_busy_calendar ON external_busy (tenant_id, calendar_id, start_at);
CREATE INDEX external_busy_subscription ON external_busy (subscription_id);

-- The engine refuses an active allocation over external busy time of its calendar. On update only
-- when a row becomes active or moves: busy time imported over an existing booking (allowed, and
-- reported) does not stop that booking from being confirmed.
CREATE TRIGGER allocations_no_external_busy_insert BEFORE INSERT ON allocations
WHEN NEW.active = 1
BEGIN
  SELECT RAISE(ABORT, 'HOLDFAST_EXTERNAL_BUSY') WHERE EXISTS (
    SELECT 1 FROM external_busy e
    WHERE e.tenant_id = NEW.tenant_id AND e.calendar_id = NEW.calendar_id
      AND e.start_at < NEW.end_at AND e.start_at > NEW.start_at - ${WEEK_MS} AND e.end_at > NEW.start_at);
END;
CREATE TRIGGER allocations_no_external_busy_update BEFORE UPDATE ON allocations
WHEN NEW.active = 1 AND (OLD.active = 0 OR NEW.calendar_id <> OLD.calendar_id
  OR NEW.start_at <> OLD.start_at OR NEW.end_at <> OLD.end_at)
BEGIN
  SELECT RAISE(ABORT, 'HOLDFAST_EXTERNAL_BUSY') WHERE EXISTS (
    SELECT 1 FROM external_busy e
    WHERE e.tenant_id = NEW.tenant_id AND e.calendar_id = NEW.calendar_id
      AND e.start_at < NEW.end_at AND e.start_at > NEW.start_at - ${WEEK_MS} AND e.end_at > NEW.start_at);
END;
`,
  },
  {
    version: 16,
    name: 'webhooks: subscriptions, the outbox of booking events written by the change itself, deliveries',
    sql: `
CREATE TABLE webhook_subscriptions (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  url TEXT NOT NULL,
  -- Comma-delimited on both sides (',booking.held,booking.confirmed,'): a trigger matches a type with instr().
  events TEXT NOT NULL,
  include_contact INTEGER NOT NULL DEFAULT 0 CHECK (include_contact IN (0, 1)),
  -- AES-256-GCM under a key derived from the audit key, which is not in the database.
  secret_sealed TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  disabled_at INTEGER,
  disabled_reason TEXT,
  failing_since INTEGER,
  failed_events INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, id)
);
CREATE TABLE webhook_events (
  seq INTEGER PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  booking_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  -- The bookings row as it was (JSON with the column names): the payload shows the booking then, not now.
  booking TEXT NOT NULL
);
CREATE TABLE webhook_deliveries (
  tenant_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  total_attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  lease_owner TEXT,
  lease_until INTEGER,
  last_status INTEGER,
  last_error TEXT,
  PRIMARY KEY (tenant_id, event_id, subscription_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (tenant_id, event_seq);
CREATE TABLE webhook_attempts (
  tenant_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  status_code INTEGER,
  duration_ms INTEGER NOT NULL,
  error TEXT,
  next_attempt_at INTEGER,
  PRIMARY KEY (tenant_id, event_id, subscription_id, attempt)
);
-- Every change of a booking's status (and a payment flagged for reconciliation) writes its event
-- in the statement that makes it, whichever code path it is: nothing is lost between the change
-- and the outbox. Only when a subscription of the tenant wants that type.
${webhookTrigger('webhook_booking_held', 'AFTER INSERT ON bookings', "NEW.status = 'HELD'", "'booking.held'")}
${webhookTrigger(
  'webhook_booking_status',
  'AFTER UPDATE OF status ON bookings',
  'OLD.status <> NEW.status',
  `CASE NEW.status WHEN 'HELD' THEN 'booking.held' WHEN 'CONFIRMED' THEN 'booking.confirmed'
     WHEN 'CANCELLED' THEN 'booking.cancelled' WHEN 'EXPIRED' THEN 'booking.expired' ELSE 'booking.released' END`,
)}
${webhookTrigger(
  'webhook_booking_payment_flagged',
  'AFTER UPDATE OF payment ON bookings',
  "coalesce(json_extract(NEW.payment, '$.reconciliationRequired'), 0) = 1 AND coalesce(json_extract(OLD.payment, '$.reconciliationRequired'), 0) <> 1",
  "'booking.payment_flagged'",
)}
`,
  },
  {
    version: 17,
    name: 'reschedule: a replacement hold names the confirmed booking it moves',
    sql: `
ALTER TABLE bookings ADD COLUMN replaces TEXT;
`,
  },
  {
    version: 18,
    name: "a tenant's approval window: how long a person has to decide, and a hold waiting for them is kept",
    sql: `
ALTER TABLE tenants ADD COLUMN approval_window_minutes INTEGER NOT NULL DEFAULT 30
  CHECK (approval_window_minutes BETWEEN 1 AND 1440);
-- The zone a person reads times in (unset: their browser's).
ALTER TABLE people ADD COLUMN time_zone TEXT;
-- A booking's story lists the approvals asked about it.
CREATE INDEX approvals_booking ON approvals (tenant_id, booking_id, created_at);
`,
  },
  {
    version: 19,
    name: 'the installation: the address its server serves people at, for links the command line prints',
    sql: `
CREATE TABLE installation (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`,
  },
  {
    version: 20,
    name: "a person's held calendar-hours (PostgreSQL's room function; SQLite counts in the writer)",
    sql: `SELECT 1;`,
  },
  {
    version: 21,
    name: "webhooks cost nothing where none is configured (PostgreSQL's trigger; SQLite's asks in its WHEN already)",
    sql: `SELECT 1;`,
  },
  {
    version: 22,
    name: "a server's remembered credentials (PostgreSQL's NOTIFY; SQLite's one process reads each call's)",
    sql: `SELECT 1;`,
  },
  {
    version: 23,
    name: "a message's batch keeps the digest of its content: the same replays, other content supersedes",
    sql: `ALTER TABLE inbox_batches ADD COLUMN content_digest TEXT;`,
  },
  {
    version: 24,
    name: "customers are read from the bookings that name them: an index on each tenant's customer keys",
    sql: `CREATE INDEX bookings_customer ON bookings (tenant_id, customer_key) WHERE customer_key IS NOT NULL;`,
  },
  {
    version: 25,
    name: 'calendars say what they are (a description and tags an agent finds them by); a tenant may turn counter-offers off',
    sql: `ALTER TABLE calendars ADD COLUMN description TEXT;
ALTER TABLE calendars ADD COLUMN tags TEXT;
ALTER TABLE tenants ADD COLUMN offer_alternatives INTEGER NOT NULL DEFAULT 1;`,
  },
  {
    version: 26,
    name: "people's standing approvals: rules under which their agents' changes are approved at once, and the approvals each made",
    sql: `CREATE TABLE standing_rules (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  person_id TEXT NOT NULL,
  person_name TEXT NOT NULL,
  connection_id TEXT,
  bounds TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  granted_via TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX standing_rules_person ON standing_rules (tenant_id, person_id, created_at);
ALTER TABLE approvals ADD COLUMN standing_rule_id TEXT;
CREATE INDEX approvals_standing_rule ON approvals (tenant_id, standing_rule_id, decided_at) WHERE standing_rule_id IS NOT NULL;`,
  },
  {
    version: 27,
    name: 'recurring series: the occurrences of a series held, approved and paid as one',
    sql: `ALTER TABLE bookings ADD COLUMN series_id TEXT;
CREATE INDEX bookings_series ON bookings (tenant_id, series_id) WHERE series_id IS NOT NULL;`,
  },
  {
    version: 28,
    name: 'change sets: holds, moves and cancellations proposed, approved and committed as one',
    sql: `CREATE TABLE change_sets (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  subject TEXT NOT NULL,
  status TEXT NOT NULL,
  changes TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
ALTER TABLE bookings ADD COLUMN change_set_id TEXT;`,
  },
  {
    version: 29,
    name: 'signed receipts: what each confirmation attests, and the keys that sign them',
    sql: `CREATE TABLE receipts (
  tenant_id TEXT NOT NULL,
  booking_id TEXT NOT NULL,
  facts TEXT NOT NULL,
  operation_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  jws TEXT,
  PRIMARY KEY (tenant_id, booking_id)
);
CREATE TABLE receipt_keys (
  kid TEXT PRIMARY KEY,
  sealed TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  retired_at INTEGER
);
CREATE INDEX audit_log_confirming ON audit_log (operation_id) WHERE tool IN ('confirm_booking', 'confirm_changes');`,
  },
  {
    version: 30,
    name: "customers' keys: their details are stored sealed, and erasing a customer destroys the key",
    sql: `CREATE TABLE customer_keys (
  tenant_id TEXT NOT NULL,
  handle TEXT NOT NULL,
  key_id TEXT NOT NULL UNIQUE,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, handle)
);
ALTER TABLE tenants ADD COLUMN customer_retention_days int;`,
  },
  {
    version: 31,
    name: 'waitlists: wanted windows, first come first offered, and one instance matching a tenant at a time',
    sql: `CREATE TABLE waitlist_entries (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  subject TEXT NOT NULL,
  client_id TEXT NOT NULL,
  connection_id TEXT NOT NULL,
  calendar_ids TEXT NOT NULL,
  duration_minutes int NOT NULL,
  earliest INTEGER NOT NULL,
  latest INTEGER NOT NULL,
  label TEXT,
  status TEXT NOT NULL,
  offer_booking_id TEXT,
  offer_expires_at INTEGER,
  seq INTEGER NOT NULL,
  version int NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX waitlist_open ON waitlist_entries (tenant_id, status, seq);
CREATE TABLE waitlist_leases (
  tenant_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_until INTEGER NOT NULL
);`,
  },
  {
    version: 32,
    name: 'two-way CalDAV sync: connected collections, their events, the bookings written to them, overlaps',
    sql: `CREATE TABLE caldav_connections (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  calendar_id TEXT NOT NULL,
  collection_url TEXT NOT NULL,
  username TEXT NOT NULL,
  sealed_password TEXT NOT NULL,
  oauth_token_url TEXT,
  oauth_client_id TEXT,
  share_contact int NOT NULL,
  every_ms INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  next_run_at INTEGER NOT NULL,
  last_ok_at INTEGER,
  last_error TEXT,
  last_error_at INTEGER,
  event_count int NOT NULL,
  busy_count int NOT NULL,
  sync_token TEXT,
  lease_owner TEXT,
  lease_until INTEGER
);
CREATE INDEX caldav_connections_tenant ON caldav_connections (tenant_id, created_at);
CREATE INDEX caldav_connections_due ON caldav_connections (next_run_at);
CREATE TABLE caldav_events (
  connection_id TEXT NOT NULL,
  href TEXT NOT NULL,
  etag TEXT,
  ics TEXT NOT NULL,
  PRIMARY KEY (connection_id, href)
);
CREATE TABLE caldav_pushed (
  connection_id TEXT NOT NULL,
  booking_id TEXT NOT NULL,
  href TEXT NOT NULL,
  version int NOT NULL,
  etag TEXT,
  end_at INTEGER NOT NULL,
  PRIMARY KEY (connection_id, booking_id)
);
CREATE TABLE caldav_overlaps (
  tenant_id TEXT NOT NULL,
  booking_id TEXT NOT NULL,
  connection_id TEXT NOT NULL,
  href TEXT NOT NULL,
  summary TEXT,
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL
);
CREATE INDEX caldav_overlaps_booking ON caldav_overlaps (tenant_id, booking_id);
CREATE INDEX caldav_overlaps_connection ON caldav_overlaps (connection_id);`,
  },
  {
    version: 33,
    name: 'each of the five source contracts as a profile a tenant may choose',
    sql: `ALTER TABLE tenants ADD COLUMN profile TEXT NOT NULL DEFAULT 'inherit'
  CHECK (profile IN ('inherit', 'standard', 'hotel-ops', 'expert-booking', 'bookings', 'deltat', 'agent-access'));
UPDATE tenants SET profile = tool_profile;`,
  },
  {
    version: 34,
    name: 'bookings-mcp: customers numbered per tenant, approval tokens bound to a tool and its exact arguments; an approval keeps a hold only once a person looks',
    sql: `-- A customer's number is theirs for good: the tenant counts them, so an erased customer's
-- number is never given to anyone else.
ALTER TABLE customer_keys ADD COLUMN number INTEGER;
ALTER TABLE tenants ADD COLUMN customer_numbers INTEGER NOT NULL DEFAULT 0;
UPDATE customer_keys SET number = (
  SELECT count(*) FROM customer_keys k WHERE k.tenant_id = customer_keys.tenant_id AND k.handle LIKE 'c1:%'
    AND (k.created_at < customer_keys.created_at OR (k.created_at = customer_keys.created_at AND k.handle <= customer_keys.handle)))
WHERE handle LIKE 'c1:%';
UPDATE tenants SET customer_numbers = coalesce(
  (SELECT max(number) FROM customer_keys k WHERE k.tenant_id = tenants.id), 0);
CREATE UNIQUE INDEX customer_keys_number ON customer_keys (tenant_id, number) WHERE number IS NOT NULL;
-- A token an agent carries to a write: bound to one tool and the digest of its exact arguments,
-- usable once (even a failed use spends it), and only after a person approved its approval.
CREATE TABLE approval_tokens (
  tenant_id TEXT NOT NULL,
  token_hash TEXT PRIMARY KEY,
  approval_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  used_by TEXT
);
CREATE INDEX approval_tokens_approval ON approval_tokens (tenant_id, approval_id);
-- An approval's own decision window (a contract's), and whether its hold keeps its own TTL.
ALTER TABLE approvals ADD COLUMN window_ms INTEGER;
ALTER TABLE approvals ADD COLUMN hold_fixed INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 35,
    name: 'agent-access: an approval whose yes runs the write (a pending operation), and why its last run failed',
    sql: `ALTER TABLE approvals ADD COLUMN executes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE approvals ADD COLUMN last_failure TEXT;`,
  },
  {
    version: 36,
    name: 'bookings-mcp: the note an agent writes for the person deciding an approval',
    sql: `ALTER TABLE approvals ADD COLUMN requester_note TEXT;`,
  },
  {
    version: 37,
    name: 'agent-access: the connection that drafted an operation, checked again when it runs',
    sql: `ALTER TABLE approvals ADD COLUMN connection_id TEXT;`,
  },
];

/**
 * A trigger writing the event whose type the SQL expression `type` names, and its deliveries,
 * when `when` holds and an active subscription of the tenant wants that type.
 */
function webhookTrigger(name: string, on: string, when: string, type: string): string {
  return `CREATE TRIGGER ${name} ${on}
WHEN ${when} AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.tenant_id = NEW.tenant_id
  AND s.disabled_at IS NULL AND instr(s.events, ',' || (${type}) || ',') > 0)
BEGIN
  INSERT INTO webhook_events (tenant_id, id, type, booking_id, created_at, booking)
  VALUES (NEW.tenant_id, 'evt_' || lower(hex(randomblob(16))), ${type}, NEW.id, NEW.updated_at,
    json_object('tenant_id', NEW.tenant_id, 'id', NEW.id, 'reference', NEW.reference, 'calendar_ids', NEW.calendar_ids, 'start_at', NEW.start_at, 'end_at', NEW.end_at, 'status', NEW.status, 'version', NEW.version, 'created_at', NEW.created_at, 'updated_at', NEW.updated_at, 'expires_at', NEW.expires_at, 'customer', NEW.customer, 'label', NEW.label, 'price_amount', NEW.price_amount, 'price_currency', NEW.price_currency, 'payment', NEW.payment, 'owner_subject', NEW.owner_subject, 'owner_client', NEW.owner_client, 'owner_connection', NEW.owner_connection, 'external_keys', NEW.external_keys, 'payment_follow_up', NEW.payment_follow_up, 'customer_key', NEW.customer_key));
  INSERT INTO webhook_deliveries (tenant_id, event_id, subscription_id, event_seq, state, next_attempt_at)
  SELECT e.tenant_id, e.id, s.id, e.seq, 'pending', e.created_at
  FROM webhook_events e JOIN webhook_subscriptions s ON s.tenant_id = e.tenant_id
  WHERE e.seq = last_insert_rowid() AND s.disabled_at IS NULL AND instr(s.events, ',' || e.type || ',') > 0;
END;`;
}
