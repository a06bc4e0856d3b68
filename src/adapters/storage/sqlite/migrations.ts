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
];
