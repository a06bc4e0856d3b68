import { UsageError } from './usage-error.js';

/** The deltat service the seed's configuration points at by default: the one on this machine. */
const LOCAL_HOSTS = ['localhost', '127.0.0.1', '::1'];
const LOCAL_PORT = '5433';
/** deltat's default database; here it is the default tenant. */
const DEFAULT_DATABASE = 'public';

/**
 * The tenant a deltat configuration names (profile deltat): each DELTAT_DATABASE is a tenant of
 * its own, and the seed's default, `public`, is Holdfast's default tenant, `local`. DELTAT_HOST and
 * DELTAT_PORT may say where the seed's local deltat listens (localhost:5433): this process is that
 * store. Any other address would be a deltat somewhere else, which Holdfast does not talk to, so
 * it is refused rather than ignored (bookings would land in another store than the one meant).
 */
export function deltatTenant(env: NodeJS.ProcessEnv): string | undefined {
  const host = env.DELTAT_HOST;
  if (host !== undefined && !LOCAL_HOSTS.includes(host.replace(/^\[|\]$/g, '').toLowerCase()))
    throw new UsageError(
      `DELTAT_HOST=${host} names a deltat elsewhere; holdfast stdio --profile deltat is its own store (the local one, localhost:5433): unset DELTAT_HOST, and choose the database with --db or --database`,
    );
  if (env.DELTAT_PORT !== undefined && env.DELTAT_PORT !== LOCAL_PORT)
    throw new UsageError(
      `DELTAT_PORT=${env.DELTAT_PORT} names a deltat elsewhere; holdfast stdio --profile deltat is its own store (the local one, port ${LOCAL_PORT}): unset DELTAT_PORT, and choose the database with --db or --database`,
    );
  const database = env.DELTAT_DATABASE;
  return database === undefined || database === DEFAULT_DATABASE ? undefined : database;
}
