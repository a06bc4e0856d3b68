import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Addresses Holdfast never fetches from or posts to on someone's behalf unless the operator
 * allows private destinations: this host, private networks, link-local (cloud metadata at
 * 169.254.169.254), shared, documentation, benchmarking, multicast and reserved ranges (IANA
 * special-purpose registries), and every IPv6 form that embeds an IPv4 address.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  // IPv4-compatible (deprecated) with :: and ::1 inside it.
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function groupsOf(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv6 one carries in its last 32 bits, written the IPv4 way. */
const embeddedIPv4 = (groups: number[]) =>
  `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;

/** Whether `address` (an IP literal in any notation) is special-use; anything that is not an IP address counts as one. */
export function isSpecialUseAddress(address: string): boolean {
  // Brackets, a zone id (fe80::1%eth0) and letter case do not change the address.
  const bare = address
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  if (isIPv4(bare)) return blocked.check(bare, 'ipv4');
  if (!isIPv6(bare)) return true;
  const groups = groupsOf(bare);
  // An IPv4 address written as IPv6 (mapped ::ffff:a.b.c.d, in dotted or hex form) is that IPv4 address.
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return blocked.check(embeddedIPv4(groups), 'ipv4');
  return blocked.check(bare, 'ipv6');
}

/**
 * Names that never lead anywhere public: this host (`localhost` and every `*.localhost`, RFC
 * 6761), the local network's (`.local` mDNS, `.internal`, `.home.arpa`), with or without the
 * trailing dot of a fully qualified name.
 */
export function isSpecialUseName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return (
    name === 'localhost' ||
    name === '' ||
    /\.(localhost|local|internal|home\.arpa)$/.test(name) ||
    name === 'local' ||
    name === 'internal'
  );
}
