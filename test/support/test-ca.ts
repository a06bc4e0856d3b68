import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  /** The CA certificate's file: give it to a server process as NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  /** A certificate for 127.0.0.1 and localhost signed by the CA, and its key (PEM). */
  readonly cert: string;
  readonly key: string;
  cleanup(): void;
}

/** A throwaway certificate authority (openssl, one day), so a test can serve real https on 127.0.0.1. */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-ca-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=Holdfast test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  openssl('req', ...ec, '-keyout', at('leaf.key'), '-out', at('leaf.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('leaf.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('leaf.pem'),
    '-days',
    '1',
    '-extfile',
    at('leaf.ext'),
  );
  return {
    caFile: at('ca.pem'),
    cert: readFileSync(at('leaf.pem'), 'utf8'),
    key: readFileSync(at('leaf.key'), 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
