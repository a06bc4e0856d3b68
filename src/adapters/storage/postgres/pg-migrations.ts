import type { Migration } from '../migration.js';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * PostgreSQL schema, step for step the same story as SQLite's. Instants are bigint epoch
 * milliseconds (allocations since version 5; the exclusion constraint compares int8 ranges).
 */
export const pgMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'core schema: calendars, bookings, allocations, idempotency',
    sql: `
CREATE TABLE calendars (
  tenant_id text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  time_zone text NOT NULL,
  price_amount text,
  price_currency text,
  availability text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE TABLE bookings (
  tenant_id text NOT NULL,
  id text NOT NULL,
  reference text NOT NULL,
  calendar_ids text NOT NULL,
  start_at bigint NOT NULL,
  end_at bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('HELD','CONFIRMED','CANCELLED','EXPIRED','RELEASED','PAYMENT_FAILED','PAYMENT_CLOSED')),
  version integer NOT NULL CHECK (version >= 1),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  expires_at bigint,
  customer text,
  label text,
  price_amount text,
  price_currency text,
  payment text,
  owner_subject text NOT NULL,
  owner_client text NOT NULL,
  external_keys text NOT NULL,
  PRIMARY KEY (tenant_id, id),
  CHECK (end_at > start_at)
);
CREATE UNIQUE INDEX bookings_reference ON bookings (tenant_id, reference);
CREATE INDEX bookings_start ON bookings (tenant_id, start_at, id);
CREATE INDEX bookings_lapsing ON bookings (expires_at) WHERE status = 'HELD';
CREATE INDEX bookings_tenant_lapsing ON bookings (tenant_id, expires_at) WHERE status = 'HELD';
CREATE TABLE allocations (
  tenant_id text NOT NULL,
  booking_id text NOT NULL,
  calendar_id text NOT NULL,
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  active boolean NOT NULL,
  PRIMARY KEY (tenant_id, booking_id, calendar_id),
  FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id),
  FOREIGN KEY (tenant_id, calendar_id) REFERENCES calendars (tenant_id, id),
  CHECK (end_at > start_at),
  -- The engine, not the application, refuses two overlapping active allocations on one calendar.
  CONSTRAINT allocations_no_overlap EXCLUDE USING gist (
    tenant_id WITH =, calendar_id WITH =, tstzrange(start_at, end_at, '[)') WITH &&
  ) WHERE (active)
);
CREATE TABLE idempotency (
  tenant_id text NOT NULL,
  subject text NOT NULL,
  tool text NOT NULL,
  key text NOT NULL,
  arguments_digest text NOT NULL,
  result text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, subject, tool, key)
);
CREATE INDEX idempotency_expiry ON idempotency (expires_at);
`,
  },
  {
    version: 2,
    name: 'approvals and host attestations',
    sql: `
CREATE TABLE approvals (
  tenant_id text NOT NULL,
  id text NOT NULL,
  subject text NOT NULL,
  client_id text NOT NULL,
  action text NOT NULL CHECK (action IN ('confirm_booking', 'cancel_booking')),
  booking_id text NOT NULL,
  intent text NOT NULL,
  intent_hash text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING','APPROVED','DENIED','EXPIRED','USED')),
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  decided_at bigint,
  decided_by text,
  burned_reason text,
  page_token_hash text,
  PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX approvals_page_token ON approvals (page_token_hash) WHERE page_token_hash IS NOT NULL;
CREATE INDEX approvals_status ON approvals (tenant_id, status, created_at);
CREATE TABLE host_attestations (
  tenant_id text NOT NULL,
  approval_id text NOT NULL,
  used_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, approval_id)
);
`,
  },
  {
    version: 3,
    name: 'payment simulator and hash-chained audit log',
    sql: `
CREATE TABLE simulated_payments (
  booking_id text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('PENDING','PAID','FAILED','CLOSED')),
  amount text,
  currency text,
  paid_at bigint,
  updated_at bigint NOT NULL
);
CREATE TABLE audit_log (
  seq bigint PRIMARY KEY,
  at bigint NOT NULL,
  tenant_id text NOT NULL,
  subject text NOT NULL,
  client_id text NOT NULL,
  transport text NOT NULL,
  tool text NOT NULL,
  kind text NOT NULL,
  outcome text NOT NULL,
  error_code text,
  blocked_reason text,
  arguments_digest text NOT NULL,
  preview text NOT NULL,
  trace_id text NOT NULL,
  duration_ms double precision NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'audit log is append-only'; END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
`,
  },
  {
    version: 4,
    name: 'keyed audit chain with pending entries; payment follow-up of lapsed priced holds',
    sql: `
CREATE TABLE audit_pending (
  id bigserial PRIMARY KEY,
  at bigint NOT NULL,
  tenant_id text NOT NULL,
  subject text NOT NULL,
  client_id text NOT NULL,
  transport text NOT NULL,
  tool text NOT NULL,
  kind text NOT NULL,
  outcome text NOT NULL,
  error_code text,
  blocked_reason text,
  arguments_digest text NOT NULL,
  preview text NOT NULL,
  trace_id text NOT NULL,
  duration_ms double precision NOT NULL,
  operation_id text NOT NULL,
  entry_mac text NOT NULL
);
ALTER TABLE audit_log ADD COLUMN mac_version integer NOT NULL DEFAULT 1, ADD COLUMN key_id text,
  ADD COLUMN operation_id text NOT NULL DEFAULT '';
ALTER TABLE bookings ADD COLUMN payment_follow_up boolean NOT NULL DEFAULT false;
CREATE INDEX bookings_payment_follow_up ON bookings (updated_at) WHERE payment_follow_up;
`,
  },
  {
    version: 5,
    name: 'calendar versions; allocations in epoch milliseconds like every other instant',
    sql: `
ALTER TABLE calendars ADD COLUMN version integer NOT NULL DEFAULT 1;
-- One encoding of instants on both engines, so both run the same SQL; the overlap rule is unchanged.
ALTER TABLE allocations DROP CONSTRAINT allocations_no_overlap;
ALTER TABLE allocations
  ALTER COLUMN start_at TYPE bigint USING round(extract(epoch FROM start_at) * 1000)::bigint,
  ALTER COLUMN end_at TYPE bigint USING round(extract(epoch FROM end_at) * 1000)::bigint;
ALTER TABLE allocations ADD CONSTRAINT allocations_at_most_a_week CHECK (end_at - start_at <= ${WEEK_MS});
ALTER TABLE allocations ADD CONSTRAINT allocations_no_overlap EXCLUDE USING gist (
  tenant_id WITH =, calendar_id WITH =, int8range(start_at, end_at, '[)') WITH &&
) WHERE (active);
CREATE INDEX allocations_active ON allocations (tenant_id, calendar_id, start_at) WHERE active;
`,
  },
  {
    version: 6,
    name: 'tenants, people, sessions, setup links, access tokens, hosts; bookings name their connection',
    sql: `
CREATE TABLE tenants (
  id text PRIMARY KEY,
  name text NOT NULL,
  limits text NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE people (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants (id),
  email text NOT NULL UNIQUE,
  display_name text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'approver', 'viewer')),
  password_hash text,
  disabled_at bigint,
  created_at bigint NOT NULL
);
CREATE INDEX people_tenant ON people (tenant_id);
-- One-time links to set a password (or create the first owner); only their digest is kept.
CREATE TABLE setup_links (
  secret_hash text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants (id),
  -- Null: the link creates the tenant's first owner.
  person_id text REFERENCES people (id),
  expires_at bigint NOT NULL,
  spent_at bigint
);
CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  tenant_id text NOT NULL,
  person_id text NOT NULL REFERENCES people (id),
  method text NOT NULL,
  created_at bigint NOT NULL,
  last_seen_at bigint NOT NULL,
  csrf_secret text NOT NULL
);
CREATE INDEX sessions_person ON sessions (person_id);
CREATE TABLE access_tokens (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants (id),
  person_id text NOT NULL REFERENCES people (id),
  name text NOT NULL,
  scopes text NOT NULL,
  write_policy text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint,
  last_used_at bigint
);
CREATE TABLE hosts (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants (id),
  name text NOT NULL,
  public_key text NOT NULL,
  created_at bigint NOT NULL,
  revoked_at bigint
);
-- Which connection made a booking; the person is owner_subject. Active holds are counted per both.
ALTER TABLE bookings ADD COLUMN owner_connection text NOT NULL DEFAULT '';
CREATE INDEX bookings_held_by_owner ON bookings (tenant_id, owner_subject) WHERE status = 'HELD';
-- rate-limiter-flexible's table (its own shape), shared by every instance.
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
-- Room for one more hold: serialised per person (a transaction-scoped lock), then counted with a
-- fresh snapshot, so concurrent holds of one person cannot all see the same count.
CREATE FUNCTION holdfast_hold_room(p_tenant text, p_subject text, p_connection text, p_now bigint,
  p_per_person int, p_per_connection int) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  by_person int;
  by_connection int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('holdfast-holds:' || p_tenant || ':' || p_subject, 0));
  -- At most the person's cap of rows: below it the count is exact, at it the answer is no.
  SELECT count(*), count(*) FILTER (WHERE owner_connection = p_connection) INTO by_person, by_connection
    FROM (SELECT owner_connection FROM bookings
          WHERE tenant_id = p_tenant AND owner_subject = p_subject AND status = 'HELD' AND expires_at > p_now
          LIMIT p_per_person) AS held;
  RETURN by_person < p_per_person AND by_connection < p_per_connection;
END $$;
`,
  },
  {
    version: 7,
    name: 'passkeys and the challenges of passkey ceremonies under way',
    sql: `
CREATE TABLE passkeys (
  -- The credential id the authenticator chose (base64url).
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants (id),
  person_id text NOT NULL REFERENCES people (id),
  name text NOT NULL,
  public_key text NOT NULL,
  counter bigint NOT NULL,
  transports text NOT NULL,
  rp_id text NOT NULL,
  created_at bigint NOT NULL,
  last_used_at bigint
);
CREATE INDEX passkeys_person ON passkeys (person_id);
-- One row per ceremony under way; the answer spends it, expired ones are swept on insert.
CREATE TABLE passkey_challenges (
  challenge text PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('register', 'sign-in')),
  person_id text,
  rp_id text NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);
`,
  },
  {
    version: 8,
    name: "the authorization server: its records, sealed signing keys, and people's OAuth connections",
    sql: `
-- Whatever oidc-provider keeps (codes, refresh tokens, clients, grants, interactions), as its JSON.
CREATE TABLE oauth_records (
  kind text NOT NULL,
  id text NOT NULL,
  payload text NOT NULL,
  grant_id text,
  uid text,
  user_code text,
  expires_at bigint,
  consumed_at bigint,
  PRIMARY KEY (kind, id)
);
CREATE INDEX oauth_records_grant ON oauth_records (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_records_uid ON oauth_records (kind, uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_records_expiry ON oauth_records (expires_at) WHERE expires_at IS NOT NULL;
-- Private keys sealed (AES-256-GCM) with the installation's secret, shared by every instance.
CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  sealed text NOT NULL,
  created_at bigint NOT NULL,
  retired_at bigint
);
CREATE TABLE oauth_connections (
  grant_id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants (id),
  person_id text NOT NULL REFERENCES people (id),
  client_id text NOT NULL,
  client_name text NOT NULL,
  redirect_host text NOT NULL,
  scopes text NOT NULL,
  write_policy text NOT NULL,
  created_at bigint NOT NULL,
  revoked_at bigint,
  last_used_at bigint
);
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
ALTER TABLE tenants ADD COLUMN default_write_policy text NOT NULL DEFAULT 'draft'
  CHECK (default_write_policy IN ('readonly', 'draft', 'attested', 'direct'));
`,
  },
  {
    version: 11,
    name: 'the reservation inbox: messages, conversations, submitted batches, tasks, business keys, ingest tokens',
    sql: `
CREATE TABLE inbox_conversations (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  provider text NOT NULL,
  channel text NOT NULL,
  external_id text NOT NULL,
  subject text,
  created_at bigint NOT NULL,
  last_received_at bigint NOT NULL,
  UNIQUE (tenant_id, provider, channel, external_id)
);
CREATE INDEX inbox_conversations_key ON inbox_conversations (tenant_id, external_id);
CREATE INDEX inbox_conversations_recent ON inbox_conversations (tenant_id, last_received_at);
-- Ingesting the same provider message twice finds it here and adds nothing.
CREATE TABLE inbox_messages (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  provider text NOT NULL,
  channel text NOT NULL,
  external_id text NOT NULL,
  conversation_id text NOT NULL REFERENCES inbox_conversations (id),
  rfc_message_id text,
  in_reply_to text,
  refs text NOT NULL,
  subject text,
  from_addr text,
  cc text NOT NULL,
  received_at bigint NOT NULL,
  text_body text NOT NULL,
  html_sanitized text,
  created_at bigint NOT NULL,
  UNIQUE (tenant_id, provider, channel, external_id)
);
CREATE INDEX inbox_messages_external ON inbox_messages (tenant_id, external_id);
CREATE INDEX inbox_messages_rfc ON inbox_messages (tenant_id, rfc_message_id);
CREATE INDEX inbox_messages_conversation ON inbox_messages (tenant_id, conversation_id, received_at);
-- The bytes as received, kept once for the record; nothing reads them back.
CREATE TABLE inbox_raw_bodies (
  message_id text PRIMARY KEY REFERENCES inbox_messages (id),
  tenant_id text NOT NULL,
  raw bytea NOT NULL
);
CREATE TABLE inbox_body_reads (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  message_id text NOT NULL,
  reader text NOT NULL,
  via text NOT NULL,
  read_at bigint NOT NULL
);
CREATE INDEX inbox_body_reads_message ON inbox_body_reads (tenant_id, message_id, read_at);
-- One batch per source message: a second submission replays the first.
CREATE TABLE inbox_batches (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  message_id text NOT NULL REFERENCES inbox_messages (id),
  shape text NOT NULL,
  result text NOT NULL,
  submitted_by text NOT NULL,
  created_at bigint NOT NULL,
  UNIQUE (tenant_id, message_id)
);
CREATE TABLE inbox_tasks (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  batch_id text NOT NULL REFERENCES inbox_batches (id),
  message_id text NOT NULL,
  conversation_id text NOT NULL,
  transition_id text NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('task', 'adapter_contract_error')),
  source_event_index integer NOT NULL,
  result_type text NOT NULL,
  event_type text,
  task_type text,
  status text NOT NULL CHECK (status IN ('PENDING_CONFIRMATION', 'CONFIRMING', 'AWAITING_APPROVAL', 'CONFIRMED', 'REJECTED', 'CONTRACT_ERROR')),
  object_id text,
  approval_id text,
  detail text NOT NULL,
  decided_by text,
  decided_at bigint,
  note text,
  version integer NOT NULL,
  created_at bigint NOT NULL,
  group_code text,
  confirmation_number text,
  reservation_no text
);
CREATE INDEX inbox_tasks_conversation ON inbox_tasks (tenant_id, conversation_id);
CREATE INDEX inbox_tasks_object ON inbox_tasks (tenant_id, object_id);
-- A confirmation or reservation number names one booking in a tenant; a group code many.
CREATE TABLE booking_keys (
  tenant_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('confirmation', 'group', 'reservation')),
  value text NOT NULL,
  booking_id text NOT NULL,
  PRIMARY KEY (tenant_id, kind, value, booking_id)
);
CREATE UNIQUE INDEX booking_keys_one_booking ON booking_keys (tenant_id, kind, value) WHERE kind <> 'group';
CREATE INDEX booking_keys_booking ON booking_keys (tenant_id, booking_id);
CREATE TABLE inbox_ingest_tokens (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  name text NOT NULL,
  digest text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  expires_at bigint,
  revoked_at bigint,
  last_used_at bigint
);
-- Which tool contract a tenant's agents get ('inherit': the server's --profile), and tools switched off.
ALTER TABLE tenants ADD COLUMN tool_profile text NOT NULL DEFAULT 'inherit'
  CHECK (tool_profile IN ('inherit', 'hotel-ops', 'standard'));
ALTER TABLE tenants ADD COLUMN disabled_tools text NOT NULL DEFAULT '[]';
`,
  },
  {
    version: 12,
    name: "how a tenant's agents see the tools: flat, or the progressive catalog",
    sql: `
ALTER TABLE tenants ADD COLUMN tool_mode text NOT NULL DEFAULT 'inherit'
  CHECK (tool_mode IN ('inherit', 'flat', 'catalog'));
`,
  },
  {
    version: 13,
    name: 'booking rules per calendar, and the customer key per-customer limits count by',
    sql: `
ALTER TABLE calendars ADD COLUMN booking_rules text;
ALTER TABLE bookings ADD COLUMN customer_key text;
-- The first of a hold's limit checks that has no room left (1-based), else 0. Each calendar's
-- limits are serialised by a transaction-scoped lock taken in the order given (sorted by the
-- caller), then counted with a fresh snapshot, so racing holds cannot all see the same count.
CREATE FUNCTION holdfast_rules_room(p_tenant text, p_now bigint, p_checks text) RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  checks jsonb := p_checks::jsonb;
  item jsonb;
  i int := 0;
  taken int;
BEGIN
  FOR item IN SELECT value FROM jsonb_array_elements(checks) LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('holdfast-limits:' || p_tenant || ':' || (item->>'c'), 0));
  END LOOP;
  FOR item IN SELECT value FROM jsonb_array_elements(checks) LOOP
    i := i + 1;
    SELECT count(*) INTO taken FROM bookings b JOIN allocations a ON a.tenant_id = b.tenant_id AND a.booking_id = b.id
      WHERE a.tenant_id = p_tenant AND a.calendar_id = item->>'c' AND a.active
        AND a.start_at >= (item->>'f')::bigint - 43200000 AND a.start_at < (item->>'t')::bigint
        AND b.start_at >= (item->>'f')::bigint AND b.start_at < (item->>'t')::bigint
        AND NOT (b.status = 'HELD' AND b.expires_at <= p_now)
        AND (item->>'k' IS NULL OR b.customer_key = item->>'k')
        AND (item->>'x' IS NULL OR b.id <> item->>'x');
    IF taken >= (item->>'m')::int THEN RETURN i; END IF;
  END LOOP;
  RETURN 0;
END $$;
`,
  },
  {
    version: 14,
    name: 'capacity: a calendar takes up to N overlapping bookings, each allocation in one seat lane',
    sql: `
ALTER TABLE allocations ADD COLUMN lane integer NOT NULL DEFAULT 0 CHECK (lane >= 0 AND lane < 1000);
-- Non-overlap now holds per lane: a calendar of capacity N has lanes 0..N-1.
ALTER TABLE allocations DROP CONSTRAINT allocations_no_overlap;
ALTER TABLE allocations ADD CONSTRAINT allocations_no_overlap EXCLUDE USING gist (
  tenant_id WITH =, calendar_id WITH =, lane WITH =, int8range(start_at, end_at, '[)') WITH &&
) WHERE (active);
-- The lowest lane free for the whole time, read with a fresh snapshot after the hold's cell locks;
-- 0 when none is (the constraint then refuses the hold as taken). A taken lane at or past the
-- capacity (lowered since) takes a seat too: answering it makes the constraint refuse the hold.
CREATE FUNCTION holdfast_free_lane(p_tenant text, p_calendar text, p_start bigint, p_end bigint, p_capacity int)
RETURNS int LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  free int;
  beyond int;
BEGIN
  SELECT a.lane INTO beyond FROM allocations a
    WHERE a.tenant_id = p_tenant AND a.calendar_id = p_calendar AND a.active AND a.lane >= p_capacity
      AND a.start_at < p_end AND a.start_at > p_start - ${WEEK_MS} AND a.end_at > p_start
    LIMIT 1;
  IF beyond IS NOT NULL THEN RETURN beyond; END IF;
  IF p_capacity <= 1 THEN RETURN 0; END IF;
  SELECT l INTO free FROM generate_series(0, p_capacity - 1) AS l
    WHERE NOT EXISTS (SELECT 1 FROM allocations a
      WHERE a.tenant_id = p_tenant AND a.calendar_id = p_calendar AND a.active AND a.lane = l
        AND a.start_at < p_end AND a.start_at > p_start - ${WEEK_MS} AND a.end_at > p_start)
    ORDER BY l LIMIT 1;
  RETURN coalesce(free, 0);
END $$;
`,
  },
  {
    version: 15,
    name: 'calendar feeds: published feed links, subscriptions to external busy time, and the busy time itself',
    sql: `
CREATE TABLE feed_links (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  calendar_id text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  revoked_at bigint,
  FOREIGN KEY (tenant_id, calendar_id) REFERENCES calendars (tenant_id, id)
);
CREATE INDEX feed_links_tenant ON feed_links (tenant_id, created_at);
CREATE TABLE feed_subscriptions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  calendar_id text NOT NULL,
  source text NOT NULL,
  every_ms bigint NOT NULL,
  created_at bigint NOT NULL,
  next_run_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  last_ok_at bigint,
  last_error text,
  last_error_at bigint,
  busy_count integer NOT NULL DEFAULT 0,
  FOREIGN KEY (tenant_id, calendar_id) REFERENCES calendars (tenant_id, id)
);
CREATE INDEX feed_subscriptions_due ON feed_subscriptions (next_run_at);
CREATE INDEX feed_subscriptions_tenant ON feed_subscriptions (tenant_id, created_at);
CREATE TABLE external_busy (
  tenant_id text NOT NULL,
  calendar_id text NOT NULL,
  subscription_id text NOT NULL,
  start_at bigint NOT NULL,
  end_at bigint NOT NULL,
  CHECK (end_at > start_at AND end_at - start_at <= ${WEEK_MS})
);
CREATE INDEX external_busy_calendar ON external_busy (tenant_id, calendar_id, start_at);
CREATE INDEX external_busy_subscription ON external_busy (subscription_id);

-- The engine refuses an active allocation over external busy time of its calendar (as SQLite's
-- triggers do). A refresh takes this calendar's lock exclusively before replacing busy time;
-- every allocation check takes it shared, then reads with a fresh snapshot (a volatile function
-- under READ COMMITTED): a hold and a refresh of one calendar never both commit an unseen overlap,
-- while holds still never wait for each other here.
CREATE FUNCTION holdfast_external_busy_check() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(
    hashtextextended(current_schema() || ':holdfast-busy:' || NEW.tenant_id || ':' || NEW.calendar_id, 0));
  IF EXISTS (
    SELECT 1 FROM external_busy e
    WHERE e.tenant_id = NEW.tenant_id AND e.calendar_id = NEW.calendar_id
      AND e.start_at < NEW.end_at AND e.start_at > NEW.start_at - ${WEEK_MS} AND e.end_at > NEW.start_at
  ) THEN
    RAISE EXCEPTION 'HOLDFAST_EXTERNAL_BUSY' USING ERRCODE = '23P01',
      DETAIL = 'The time overlaps busy time imported from an external calendar.';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER allocations_no_external_busy_insert BEFORE INSERT ON allocations
  FOR EACH ROW WHEN (NEW.active) EXECUTE FUNCTION holdfast_external_busy_check();
-- Only when a row becomes active or moves: confirming a booking busy time was later imported over still works.
CREATE TRIGGER allocations_no_external_busy_update BEFORE UPDATE ON allocations
  FOR EACH ROW WHEN (NEW.active AND (NOT OLD.active OR NEW.calendar_id <> OLD.calendar_id
    OR NEW.start_at <> OLD.start_at OR NEW.end_at <> OLD.end_at))
  EXECUTE FUNCTION holdfast_external_busy_check();
`,
  },
  {
    version: 16,
    name: 'webhooks: subscriptions, the outbox of booking events written by the change itself, deliveries',
    sql: `
CREATE TABLE webhook_subscriptions (
  tenant_id text NOT NULL,
  id text NOT NULL,
  url text NOT NULL,
  -- Comma-delimited on both sides (',booking.held,booking.confirmed,'): a trigger matches a type with strpos().
  events text NOT NULL,
  include_contact boolean NOT NULL DEFAULT false,
  -- AES-256-GCM under a key derived from the audit key, which is not in the database.
  secret_sealed text NOT NULL,
  created_at bigint NOT NULL,
  created_by text NOT NULL,
  disabled_at bigint,
  disabled_reason text,
  failing_since bigint,
  failed_events integer NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, id)
);
CREATE TABLE webhook_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id text NOT NULL,
  id text NOT NULL UNIQUE,
  type text NOT NULL,
  booking_id text NOT NULL,
  created_at bigint NOT NULL,
  -- The bookings row as it was (JSON with the column names): the payload shows the booking then, not now.
  booking text NOT NULL
);
CREATE TABLE webhook_deliveries (
  tenant_id text NOT NULL,
  event_id text NOT NULL,
  subscription_id text NOT NULL,
  event_seq bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  total_attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint,
  lease_owner text,
  lease_until bigint,
  last_status integer,
  last_error text,
  PRIMARY KEY (tenant_id, event_id, subscription_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (tenant_id, event_seq);
CREATE TABLE webhook_attempts (
  tenant_id text NOT NULL,
  event_id text NOT NULL,
  subscription_id text NOT NULL,
  attempt integer NOT NULL,
  at bigint NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  error text,
  next_attempt_at bigint,
  PRIMARY KEY (tenant_id, event_id, subscription_id, attempt)
);
-- The outbox write of one event: nothing when no active subscription of the tenant wants the
-- type, else the event and one delivery per such subscription. Triggers call it in the statement
-- that changes the booking (the one-statement hold and expiry included); code may call it too.
CREATE FUNCTION holdfast_webhook_record(p_tenant text, p_id text, p_type text, p_booking_id text,
  p_at bigint, p_booking text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  new_seq bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE tenant_id = p_tenant AND disabled_at IS NULL
      AND strpos(events, ',' || p_type || ',') > 0) THEN
    RETURN false;
  END IF;
  INSERT INTO webhook_events (tenant_id, id, type, booking_id, created_at, booking)
  VALUES (p_tenant, p_id, p_type, p_booking_id, p_at, p_booking) RETURNING seq INTO new_seq;
  INSERT INTO webhook_deliveries (tenant_id, event_id, subscription_id, event_seq, state, next_attempt_at)
  SELECT p_tenant, p_id, s.id, new_seq, 'pending', p_at FROM webhook_subscriptions s
  WHERE s.tenant_id = p_tenant AND s.disabled_at IS NULL AND strpos(s.events, ',' || p_type || ',') > 0;
  RETURN true;
END $$;
CREATE FUNCTION holdfast_webhook_booking_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  event_type text;
BEGIN
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    event_type := CASE NEW.status WHEN 'HELD' THEN 'booking.held' WHEN 'CONFIRMED' THEN 'booking.confirmed'
      WHEN 'CANCELLED' THEN 'booking.cancelled' WHEN 'EXPIRED' THEN 'booking.expired' ELSE 'booking.released' END;
    PERFORM holdfast_webhook_record(NEW.tenant_id, 'evt_' || replace(gen_random_uuid()::text, '-', ''),
      event_type, NEW.id, NEW.updated_at, row_to_json(NEW)::text);
  END IF;
  IF TG_OP = 'UPDATE' AND coalesce((NEW.payment::jsonb ->> 'reconciliationRequired')::boolean, false)
      AND NOT coalesce((OLD.payment::jsonb ->> 'reconciliationRequired')::boolean, false) THEN
    PERFORM holdfast_webhook_record(NEW.tenant_id, 'evt_' || replace(gen_random_uuid()::text, '-', ''),
      'booking.payment_flagged', NEW.id, NEW.updated_at, row_to_json(NEW)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_booking_inserted AFTER INSERT ON bookings
  FOR EACH ROW WHEN (NEW.status = 'HELD') EXECUTE FUNCTION holdfast_webhook_booking_changed();
CREATE TRIGGER webhook_booking_updated AFTER UPDATE ON bookings
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.payment IS DISTINCT FROM NEW.payment)
  EXECUTE FUNCTION holdfast_webhook_booking_changed();
`,
  },
  {
    version: 17,
    name: 'reschedule: a replacement hold names the confirmed booking it moves',
    sql: `
ALTER TABLE bookings ADD COLUMN replaces text;
`,
  },
  {
    version: 18,
    name: "a tenant's approval window: how long a person has to decide, and a hold waiting for them is kept",
    sql: `
ALTER TABLE tenants ADD COLUMN approval_window_minutes integer NOT NULL DEFAULT 30
  CHECK (approval_window_minutes BETWEEN 1 AND 1440);
-- The zone a person reads times in (unset: their browser's).
ALTER TABLE people ADD COLUMN time_zone text;
-- A booking's story lists the approvals asked about it.
CREATE INDEX approvals_booking ON approvals (tenant_id, booking_id, created_at);
`,
  },
  {
    version: 19,
    name: 'the installation: the address its server serves people at, for links the command line prints',
    sql: `
CREATE TABLE installation (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at bigint NOT NULL
);
`,
  },
  {
    version: 20,
    name: "a person's held calendar-hours: room for a hold counts its length times its calendars too",
    sql: `
DROP FUNCTION holdfast_hold_room(text, text, text, bigint, int, int);
-- Room for one more hold: serialised per person (a transaction-scoped lock), then counted with a
-- fresh snapshot, so concurrent holds of one person cannot all see the same count or sum.
-- p_max_ms NULL: no cap on held calendar time.
CREATE FUNCTION holdfast_hold_room(p_tenant text, p_subject text, p_connection text, p_now bigint,
  p_per_person int, p_per_connection int, p_max_ms bigint, p_new_ms bigint) RETURNS boolean
  LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  by_person int;
  by_connection int;
  held_ms bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('holdfast-holds:' || p_tenant || ':' || p_subject, 0));
  -- At most the person's cap of rows: below it the count is exact, at it the answer is no.
  SELECT count(*), count(*) FILTER (WHERE owner_connection = p_connection) INTO by_person, by_connection
    FROM (SELECT owner_connection FROM bookings
          WHERE tenant_id = p_tenant AND owner_subject = p_subject AND status = 'HELD' AND expires_at > p_now
          LIMIT p_per_person) AS held;
  IF NOT (by_person < p_per_person AND by_connection < p_per_connection) THEN
    RETURN false;
  END IF;
  IF p_max_ms IS NULL THEN
    RETURN true;
  END IF;
  SELECT coalesce(sum(b.end_at - b.start_at), 0) INTO held_ms
    FROM bookings b JOIN allocations a ON a.tenant_id = b.tenant_id AND a.booking_id = b.id AND a.active
    WHERE b.tenant_id = p_tenant AND b.owner_subject = p_subject AND b.status = 'HELD' AND b.expires_at > p_now;
  RETURN held_ms + p_new_ms <= p_max_ms;
END $$;
`,
  },
  {
    version: 21,
    name: 'webhooks cost nothing where none is configured: the booking trigger asks for a subscription first',
    sql: `
-- Most tenants have no webhook. Before, every booking write drew a uuid and serialised the row
-- (row_to_json) only for holdfast_webhook_record to find no subscription; now one probe of the
-- subscriptions' primary key ends it there.
CREATE OR REPLACE FUNCTION holdfast_webhook_booking_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  event_type text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE tenant_id = NEW.tenant_id AND disabled_at IS NULL) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    event_type := CASE NEW.status WHEN 'HELD' THEN 'booking.held' WHEN 'CONFIRMED' THEN 'booking.confirmed'
      WHEN 'CANCELLED' THEN 'booking.cancelled' WHEN 'EXPIRED' THEN 'booking.expired' ELSE 'booking.released' END;
    PERFORM holdfast_webhook_record(NEW.tenant_id, 'evt_' || replace(gen_random_uuid()::text, '-', ''),
      event_type, NEW.id, NEW.updated_at, row_to_json(NEW)::text);
  END IF;
  IF TG_OP = 'UPDATE' AND coalesce((NEW.payment::jsonb ->> 'reconciliationRequired')::boolean, false)
      AND NOT coalesce((OLD.payment::jsonb ->> 'reconciliationRequired')::boolean, false) THEN
    PERFORM holdfast_webhook_record(NEW.tenant_id, 'evt_' || replace(gen_random_uuid()::text, '-', ''),
      'booking.payment_flagged', NEW.id, NEW.updated_at, row_to_json(NEW)::text);
  END IF;
  RETURN NULL;
END $$;
`,
  },
  {
    version: 22,
    name: "a running server's remembered credentials are forgotten when a token, person or tenant changes",
    sql: `
-- Servers keep the credential behind each bearer token (pg-credential-cache.ts) and LISTEN on
-- holdfast_credentials; the payload names the schema, so schemas sharing a database stay apart.
-- A token's last-used time is not a change of its meaning: its column alone fires nothing.
CREATE FUNCTION holdfast_credentials_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('holdfast_credentials', TG_TABLE_SCHEMA);
  RETURN NULL;
END $$;
CREATE TRIGGER access_tokens_credentials_changed
  AFTER UPDATE OF id, tenant_id, person_id, name, scopes, write_policy, secret_hash, created_at, expires_at,
    revoked_at OR DELETE
  ON access_tokens FOR EACH STATEMENT EXECUTE FUNCTION holdfast_credentials_changed();
CREATE TRIGGER people_credentials_changed AFTER UPDATE OR DELETE
  ON people FOR EACH STATEMENT EXECUTE FUNCTION holdfast_credentials_changed();
CREATE TRIGGER tenants_credentials_changed AFTER UPDATE OR DELETE
  ON tenants FOR EACH STATEMENT EXECUTE FUNCTION holdfast_credentials_changed();
`,
  },
  {
    version: 23,
    name: "a message's batch keeps the digest of its content: the same replays, other content supersedes",
    sql: `ALTER TABLE inbox_batches ADD COLUMN content_digest text;`,
  },
  {
    version: 24,
    name: "customers are read from the bookings that name them: an index on each tenant's customer keys",
    sql: `CREATE INDEX bookings_customer ON bookings (tenant_id, customer_key) WHERE customer_key IS NOT NULL;`,
  },
  {
    version: 25,
    name: 'calendars say what they are (a description and tags an agent finds them by); a tenant may turn counter-offers off',
    sql: `ALTER TABLE calendars ADD COLUMN description text;
ALTER TABLE calendars ADD COLUMN tags text;
ALTER TABLE tenants ADD COLUMN offer_alternatives integer NOT NULL DEFAULT 1;`,
  },
  {
    version: 26,
    name: "people's standing approvals: rules under which their agents' changes are approved at once, and the approvals each made",
    sql: `CREATE TABLE standing_rules (
  tenant_id text NOT NULL,
  id text NOT NULL,
  person_id text NOT NULL,
  person_name text NOT NULL,
  connection_id text,
  bounds text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint,
  granted_via text NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX standing_rules_person ON standing_rules (tenant_id, person_id, created_at);
ALTER TABLE approvals ADD COLUMN standing_rule_id text;
CREATE INDEX approvals_standing_rule ON approvals (tenant_id, standing_rule_id, decided_at) WHERE standing_rule_id IS NOT NULL;`,
  },
  {
    version: 27,
    name: 'recurring series: the occurrences of a series held, approved and paid as one',
    sql: `ALTER TABLE bookings ADD COLUMN series_id text;
CREATE INDEX bookings_series ON bookings (tenant_id, series_id) WHERE series_id IS NOT NULL;`,
  },
  {
    version: 28,
    name: 'change sets: holds, moves and cancellations proposed, approved and committed as one',
    sql: `CREATE TABLE change_sets (
  tenant_id text NOT NULL,
  id text NOT NULL,
  subject text NOT NULL,
  status text NOT NULL,
  changes text NOT NULL,
  version int NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
ALTER TABLE bookings ADD COLUMN change_set_id text;`,
  },
  {
    version: 29,
    name: 'signed receipts: what each confirmation attests, and the keys that sign them',
    sql: `CREATE TABLE receipts (
  tenant_id text NOT NULL,
  booking_id text NOT NULL,
  facts text NOT NULL,
  operation_id text NOT NULL,
  created_at bigint NOT NULL,
  jws text,
  PRIMARY KEY (tenant_id, booking_id)
);
CREATE TABLE receipt_keys (
  kid text PRIMARY KEY,
  sealed text NOT NULL,
  created_at bigint NOT NULL,
  retired_at bigint
);
CREATE INDEX audit_log_confirming ON audit_log (operation_id) WHERE tool IN ('confirm_booking', 'confirm_changes');`,
  },
  {
    version: 30,
    name: "customers' keys: their details are stored sealed, and erasing a customer destroys the key",
    sql: `CREATE TABLE customer_keys (
  tenant_id text NOT NULL,
  handle text NOT NULL,
  key_id text NOT NULL UNIQUE,
  secret text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, handle)
);
ALTER TABLE tenants ADD COLUMN customer_retention_days int;`,
  },
  {
    version: 31,
    name: 'waitlists: wanted windows, first come first offered, and one instance matching a tenant at a time',
    sql: `CREATE TABLE waitlist_entries (
  tenant_id text NOT NULL,
  id text NOT NULL,
  subject text NOT NULL,
  client_id text NOT NULL,
  connection_id text NOT NULL,
  calendar_ids text NOT NULL,
  duration_minutes int NOT NULL,
  earliest bigint NOT NULL,
  latest bigint NOT NULL,
  label text,
  status text NOT NULL,
  offer_booking_id text,
  offer_expires_at bigint,
  seq bigint NOT NULL,
  version int NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX waitlist_open ON waitlist_entries (tenant_id, status, seq);
CREATE TABLE waitlist_leases (
  tenant_id text PRIMARY KEY,
  owner text NOT NULL,
  lease_until bigint NOT NULL
);`,
  },
  {
    version: 32,
    name: 'two-way CalDAV sync: connected collections, their events, the bookings written to them, overlaps',
    sql: `CREATE TABLE caldav_connections (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  calendar_id text NOT NULL,
  collection_url text NOT NULL,
  username text NOT NULL,
  sealed_password text NOT NULL,
  oauth_token_url text,
  oauth_client_id text,
  share_contact int NOT NULL,
  every_ms bigint NOT NULL,
  created_at bigint NOT NULL,
  next_run_at bigint NOT NULL,
  last_ok_at bigint,
  last_error text,
  last_error_at bigint,
  event_count int NOT NULL,
  busy_count int NOT NULL,
  sync_token text,
  lease_owner text,
  lease_until bigint
);
CREATE INDEX caldav_connections_tenant ON caldav_connections (tenant_id, created_at);
CREATE INDEX caldav_connections_due ON caldav_connections (next_run_at);
CREATE TABLE caldav_events (
  connection_id text NOT NULL,
  href text NOT NULL,
  etag text,
  ics text NOT NULL,
  PRIMARY KEY (connection_id, href)
);
CREATE TABLE caldav_pushed (
  connection_id text NOT NULL,
  booking_id text NOT NULL,
  href text NOT NULL,
  version int NOT NULL,
  etag text,
  end_at bigint NOT NULL,
  PRIMARY KEY (connection_id, booking_id)
);
CREATE TABLE caldav_overlaps (
  tenant_id text NOT NULL,
  booking_id text NOT NULL,
  connection_id text NOT NULL,
  href text NOT NULL,
  summary text,
  start_at bigint NOT NULL,
  end_at bigint NOT NULL
);
CREATE INDEX caldav_overlaps_booking ON caldav_overlaps (tenant_id, booking_id);
CREATE INDEX caldav_overlaps_connection ON caldav_overlaps (connection_id);`,
  },
  {
    version: 33,
    name: 'each of the five source contracts as a profile a tenant may choose',
    sql: `ALTER TABLE tenants ADD COLUMN profile text NOT NULL DEFAULT 'inherit'
  CHECK (profile IN ('inherit', 'standard', 'hotel-ops', 'expert-booking', 'bookings', 'deltat', 'agent-access'));
UPDATE tenants SET profile = tool_profile;`,
  },
  {
    version: 34,
    name: 'bookings-mcp: customers numbered per tenant, approval tokens bound to a tool and its exact arguments; an approval keeps a hold only once a person looks',
    sql: `-- A customer's number is theirs for good: the tenant counts them, so an erased customer's
-- number is never given to anyone else.
ALTER TABLE customer_keys ADD COLUMN number integer;
ALTER TABLE tenants ADD COLUMN customer_numbers integer NOT NULL DEFAULT 0;
UPDATE customer_keys c SET number = n.number FROM (
  SELECT tenant_id, handle, row_number() OVER (PARTITION BY tenant_id ORDER BY created_at, handle) AS number
  FROM customer_keys WHERE handle LIKE 'c1:%') n
WHERE c.tenant_id = n.tenant_id AND c.handle = n.handle;
UPDATE tenants SET customer_numbers = coalesce(
  (SELECT max(number) FROM customer_keys k WHERE k.tenant_id = tenants.id), 0);
CREATE UNIQUE INDEX customer_keys_number ON customer_keys (tenant_id, number) WHERE number IS NOT NULL;
-- A token an agent carries to a write: bound to one tool and the digest of its exact arguments,
-- usable once (even a failed use spends it), and only after a person approved its approval.
CREATE TABLE approval_tokens (
  tenant_id text NOT NULL,
  token_hash text PRIMARY KEY,
  approval_id text NOT NULL,
  tool text NOT NULL,
  arguments_hash text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint,
  used_by text
);
CREATE INDEX approval_tokens_approval ON approval_tokens (tenant_id, approval_id);
-- An approval's own decision window (a contract's), and whether its hold keeps its own TTL.
ALTER TABLE approvals ADD COLUMN window_ms bigint;
ALTER TABLE approvals ADD COLUMN hold_fixed integer NOT NULL DEFAULT 0;`,
  },
  {
    version: 35,
    name: 'agent-access: an approval whose yes runs the write (a pending operation), and why its last run failed',
    sql: `ALTER TABLE approvals ADD COLUMN executes integer NOT NULL DEFAULT 0;
ALTER TABLE approvals ADD COLUMN last_failure text;`,
  },
  {
    version: 36,
    name: 'bookings-mcp: the note an agent writes for the person deciding an approval',
    sql: `ALTER TABLE approvals ADD COLUMN requester_note text;`,
  },
  {
    version: 37,
    name: 'agent-access: the connection that drafted an operation, checked again when it runs',
    sql: `ALTER TABLE approvals ADD COLUMN connection_id text;`,
  },
];
