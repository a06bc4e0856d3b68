import type { ActivityRow, ActivityView, ChainView } from '../../../app/console/activity.js';
import { ACTIVITY_EXPORT_CAP } from '../../../app/console/activity.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import { localDateTime, relative, zoneLabel } from '../../format/human-time.js';
import { formatLocal, formatUtc } from '../../../domain/time/zone.js';
import type { FilterField, FilterValues } from './activity-filter.js';
import { filterQuery, KINDS, OUTCOMES } from './activity-filter.js';
import { Shell } from './shell.js';

/** "Tue 1 Dec 2026, 08:47:39 (Berlin)": the viewer's wall clock; seconds tell apart the calls of one minute. */
const exact = (at: number, zone: string) =>
  `${localDateTime(at, zone)}:${formatLocal(at, zone).slice(17, 19)} (${zoneLabel(zone)})`;

/** "3 min ago", or "just now" within a second (never "in 0 s" for a moment that has passed). */
const ago = (at: number, now: number) => (now - at < 1000 ? 'just now' : relative(at, now));

/** A status word with its colour, for words that are not one of the shared statuses. */
function Word(props: { word: string; tone: 'good' | 'warn' | 'bad' }) {
  return <span class={`status tone-${props.tone}`}>{props.word}</span>;
}

const OUTCOME_WORDS = {
  ok: <Word word="ok" tone="good" />,
  error: <Word word="error" tone="bad" />,
  input_required: <Word word="asked a person" tone="warn" />,
} as const;

const CHAIN_WORDS = {
  verified: <Word word="verified" tone="good" />,
  checking: <Word word="checking" tone="warn" />,
  broken: <Word word="broken" tone="bad" />,
  empty: <Word word="empty" tone="warn" />,
  unavailable: <Word word="not checked" tone="warn" />,
} as const;

/** Where the chain's verification stands, and exactly what that check covers. */
export function ChainCard(props: { chain: ChainView; now: number; zone: string }) {
  const { chain, now } = props;
  const detail = chain.detail;
  const when = (at: number | null) => (at === null ? 'never' : `${ago(at, now)} (${exact(at, props.zone)})`);
  return (
    <section class="card chain" id="chain" aria-labelledby="chain-title">
      <h2 id="chain-title">Audit chain {CHAIN_WORDS[chain.state]}</h2>
      {chain.state === 'verified' ? (
        <p>
          Every record sealed up to {chain.throughAt === null ? 'now' : exact(chain.throughAt, props.zone)}
          {detail ? ` (records 1 to ${detail.through})` : ''} is in its place, links to the one before it and
          carries a valid MAC under the audit key. Last checked {when(chain.checkedAt)}.
        </p>
      ) : chain.state === 'checking' ? (
        <p>
          Checking the chain: {detail ? `records 1 to ${detail.through}` : 'the records read so far'}{' '}
          verified. Reload the page in a moment for the rest.
        </p>
      ) : chain.state === 'broken' ? (
        <p class="notice bad" role="alert">
          The chain does not verify
          {detail?.broken ? ` at record ${detail.broken.seq}: ${detail.broken.reason}` : ''}. An operator
          should run <code>holdfast audit verify</code> for the full report.
        </p>
      ) : chain.state === 'empty' ? (
        <p>Nothing is sealed in the chain yet.</p>
      ) : (
        <p>The chain could not be read just now; the next visit tries again.</p>
      )}
      <p class="muted small">
        What this covers: this server (up since {exact(chain.since, props.zone)}) walked the whole chain the
        first time this page was opened, then checks each newly sealed record once and re-reads the newest one
        it verified on every visit. Older records are not read again, and a rewrite made with the audit key
        verifies; only <code>holdfast audit verify --checkpoint FILE</code>, with checkpoints kept outside the
        database, catches those.
      </p>
      {detail?.checkpoint ? (
        <details>
          <summary>Checkpoint of the newest verified record</summary>
          <p class="small">
            One line saying the chain had {detail.through} records when last checked
            {chain.checkedAt === null ? '' : ` (${exact(chain.checkedAt, props.zone)})`} and how it ended,
            MAC’d with a key derived from the audit key. It covers every tenant of this installation. Keep it
            where the database’s administrators cannot edit it;{' '}
            <code>holdfast audit verify --checkpoint FILE</code> checks the chain still matches it. The server
            also logs one every <code>--checkpoint-every</code> records (1,000 by default) and every 10
            minutes of activity.
          </p>
          <code class="secret" id="checkpoint">
            {detail.checkpoint}
          </code>
        </details>
      ) : (
        ''
      )}
    </section>
  );
}

/** A labelled field of the filter form; an invalid one says so and points at the message. */
function Field(props: {
  name: FilterField;
  label: string;
  values: FilterValues;
  invalid: string | undefined;
  type?: 'text' | 'datetime-local';
  hint?: string;
  /** Takes a whole row on a narrow screen (a date-time picker needs the room). */
  wide?: boolean;
}) {
  const id = `f-${props.name}`;
  const wrong = props.invalid === props.name;
  const described = [props.hint ? `${id}-hint` : '', wrong ? 'filter-error' : ''].filter(Boolean).join(' ');
  return (
    <div class={props.wide ? 'field wide' : 'field'}>
      <label for={id}>{props.label}</label>
      <input
        type={props.type ?? 'text'}
        id={id}
        name={props.name}
        value={props.values[props.name] ?? ''}
        maxlength={props.type ? undefined : 300}
        step={props.type && /:\d\d:\d\d/.test(props.values[props.name] ?? '') ? 'any' : undefined}
        aria-invalid={wrong ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {props.hint ? (
        <span class="muted small hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      ) : (
        ''
      )}
    </div>
  );
}

function Choice(props: {
  name: FilterField;
  label: string;
  values: FilterValues;
  invalid: string | undefined;
  any: string;
  options: readonly { value: string; text: string }[];
}) {
  const id = `f-${props.name}`;
  const chosen = props.values[props.name] ?? '';
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        aria-invalid={props.invalid === props.name ? 'true' : undefined}
        aria-describedby={props.invalid === props.name ? 'filter-error' : undefined}
      >
        <option value="">{props.any}</option>
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === chosen}>
            {o.text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The filter: a GET form, so it works without the script and its URL can be kept or shared. */
export function FilterForm(props: {
  zone: string;
  values: FilterValues;
  people: ActivityView['people'];
  error?: { field: string; message: string };
}) {
  const { values } = props;
  const invalid = props.error?.field;
  const common = { values, invalid };
  return (
    <form
      method="get"
      action="/console/activity"
      class="card activity-filters"
      role="search"
      aria-labelledby="filter-title"
    >
      <h2 id="filter-title">Filter</h2>
      {props.error ? (
        <p class="notice bad" id="filter-error" role="alert">
          {props.error.message}
        </p>
      ) : (
        ''
      )}
      <div class="filter-grid">
        {props.people.length > 0 ? (
          <Choice
            name="person"
            label="Person"
            any="Anyone"
            options={props.people.map((p) => ({ value: p.id, text: p.email }))}
            {...common}
          />
        ) : (
          ''
        )}
        <Field name="connection" label="Connection" hint="Exactly as shown." {...common} />
        <Field name="tool" label="Tool" hint="hold_slot, say." {...common} />
        <Choice
          name="kind"
          label="Kind"
          any="Any kind"
          options={KINDS.map((k) => ({ value: k, text: k }))}
          {...common}
        />
        <Choice
          name="outcome"
          label="Outcome"
          any="Any outcome"
          options={OUTCOMES.map((o) => ({ value: o, text: o === 'input_required' ? 'asked a person' : o }))}
          {...common}
        />
        <Field name="error" label="Error code" hint="SLOT_UNAVAILABLE, say." {...common} />
        <Field
          name="from"
          label={`From (${zoneLabel(props.zone)} time)`}
          type="datetime-local"
          hint="Included."
          wide
          {...common}
        />
        <Field
          name="to"
          label={`To (${zoneLabel(props.zone)} time)`}
          type="datetime-local"
          hint="Not included."
          wide
          {...common}
        />
        <Field
          name="mentions"
          label="Mentions"
          hint="An id in the call’s arguments, such as a booking id."
          wide
          {...common}
        />
      </div>
      <div class="actions">
        <button class="primary" type="submit">
          Show
        </button>
        <a class="button" href="/console/activity">
          Clear
        </a>
      </div>
    </form>
  );
}

function Row(props: { row: ActivityRow; now: number; zone: string }) {
  const { record: r, email } = props.row;
  return (
    <tr data-seq={r.seq}>
      <td data-label="Time">
        <time datetime={formatUtc(r.at)}>{ago(r.at, props.now)}</time>
        <br />
        <span class="muted small exact">{exact(r.at, props.zone)}</span>
      </td>
      <td data-label="Person">{email ?? <span class="muted">{r.subject}</span>}</td>
      <td data-label="Connection" class="wrap">
        {r.clientId}
      </td>
      <td data-label="Tool" class="wrap">
        <code class="tool">{r.tool}</code>
        <details>
          <summary>
            Details<span class="skip"> of record {r.seq}</span>
          </summary>
          <dl class="facts small">
            <dt>Record</dt>
            <dd>{r.seq}</dd>
            <dt>Exact time</dt>
            <dd>{`${exact(r.at, props.zone)}; ${exact(r.at, 'UTC')}`}</dd>
            <dt>Transport</dt>
            <dd>{r.transport}</dd>
            <dt>Duration</dt>
            <dd>{`${Math.round(r.durationMs * 10) / 10} ms`}</dd>
            <dt>Arguments</dt>
            <dd>
              <code>{r.preview}</code>
            </dd>
            <dt>Digest</dt>
            <dd>
              <code>{r.argumentsDigest}</code>
            </dd>
            <dt>Operation</dt>
            <dd>
              <code>{r.operationId}</code>
            </dd>
            <dt>Trace</dt>
            <dd>
              <code>{r.traceId}</code>
            </dd>
          </dl>
        </details>
      </td>
      <td data-label="Kind">{r.kind}</td>
      <td data-label="Outcome">{OUTCOME_WORDS[r.outcome]}</td>
      <td data-label="Error" class="wrap">
        {r.errorCode ?? <span class="muted">none</span>}
        {r.blockedReason ? (
          <>
            <br />
            <span class="muted small">{r.blockedReason}</span>
          </>
        ) : (
          ''
        )}
      </td>
    </tr>
  );
}

function Records(props: { view: ActivityView; values: FilterValues; now: number; zone: string }) {
  const { view, values } = props;
  if (view.rows.length === 0)
    return (
      <p class="muted" id="no-records">
        Nothing matches{Object.keys(values).length > 0 ? ' this filter' : ' yet'}.
      </p>
    );
  return (
    <>
      <div class="table-wrap">
        <table id="activity" aria-labelledby="records-title">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Person</th>
              <th scope="col">Connection</th>
              <th scope="col">Tool</th>
              <th scope="col">Kind</th>
              <th scope="col">Outcome</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {view.rows.map((row) => (
              <Row row={row} now={props.now} zone={props.zone} />
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages of activity">
        {view.newer !== null ? (
          <a href={`/console/activity${filterQuery(values, { after: view.newer })}`} rel="prev" id="newer">
            ← Newer
          </a>
        ) : (
          ''
        )}
        {view.older !== null ? (
          <a href={`/console/activity${filterQuery(values, { before: view.older })}`} rel="next" id="older">
            Older →
          </a>
        ) : (
          ''
        )}
      </nav>
    </>
  );
}

/** The downloads of what the filter matches: the same filter, the same visibility, in full up to the cap. */
function Exports(props: { values: FilterValues; ownOnly: boolean }) {
  const query = filterQuery(props.values);
  return (
    <p class="exports">
      <a class="button" id="export-csv" href={`/console/activity/export.csv${query}`}>
        Download CSV
      </a>
      <a class="button" id="export-json" href={`/console/activity/export.json${query}`}>
        Download JSON
      </a>
      <span class="muted small">
        {props.ownOnly ? 'Your records' : 'Every record'} this filter matches, not just this page: newest
        first, at most {ACTIVITY_EXPORT_CAP.toLocaleString('en-GB')} (the JSON says when more matched).
      </span>
    </p>
  );
}

/** The Activity section: the chain's state, the filter, a page of records, the exports. */
export function ActivityPage(props: {
  signed: SignedIn;
  chain: ChainView;
  values: FilterValues;
  people: ActivityView['people'];
  view?: ActivityView;
  error?: { field: string; message: string };
  now: number;
}) {
  const { view } = props;
  const ownOnly = props.signed.person.role !== 'owner';
  const zone = props.signed.zone ?? 'UTC';
  return (
    <Shell title="Activity" signed={props.signed} section="/console/activity">
      <div class="activity">
        <h1>Activity</h1>
        <p class="muted">
          {ownOnly
            ? 'What you did and what agents did for you, newest first.'
            : 'Every call and action in your tenant, by agents and by people, newest first.'}{' '}
          A call shows here once it is sealed into the audit chain, normally within a second. Times are{' '}
          {zoneLabel(zone)} time (<a href="/account#zone-title">change</a>).
        </p>
        <ChainCard chain={props.chain} now={props.now} zone={zone} />
        <FilterForm values={props.values} people={props.people} error={props.error} zone={zone} />
        <h2 id="records-title">Records</h2>
        {view ? (
          <>
            <Exports values={props.values} ownOnly={ownOnly} />
            <Records view={view} values={props.values} now={props.now} zone={zone} />
          </>
        ) : (
          <p class="muted">Fix the filter to see records.</p>
        )}
      </div>
    </Shell>
  );
}
