// Bundles the built CLI into dist/bin/: Node 20 spends most of a start loading ~600 small ES
// modules one file at a time, so the entry people and hosts run is a handful of files instead.
// Each command's and feature's dynamic import stays a separate chunk, loaded only when used.
// Packages outside BUNDLED stay in node_modules: native code (better-sqlite3), CommonJS that
// requires files by computed paths (pino's transports, oidc-provider), and what loads late anyway.
import { chmodSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'rolldown';

// The pure ES module packages on the path to a first answer.
const BUNDLED = [
  /^zod(\/|$)/,
  /^@modelcontextprotocol\//,
  /^hono(\/|$)/,
  /^@hono\//,
  /^jose(\/|$)/,
  /^temporal-(polyfill|utils)(\/|$)/,
  /^@opentelemetry\//,
  /^canonicalize(\/|$)/,
];
const isPackage = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');

// Built aside, then moved in file by file: a rebuild while servers start from dist/bin (the suite
// runs `npm run demo`, which builds) never shows them a missing file. Chunk names carry a hash of
// their content, so an unchanged build replaces each file with itself and removes nothing.
// Two builds at once (the suite's `npm start` and `npm run demo`) each build into a folder of
// their own: a shared one would be emptied under the other.
const OUT = 'dist/bin';
const NEXT = `dist/bin.next-${process.pid}`;
rmSync(NEXT, { recursive: true, force: true });
await build({
  // The CLI, the writer thread, and the two entries an application imports (package.json's exports):
  // the published package carries dist/bin and the declarations only.
  input: {
    holdfast: 'dist/main/cli.js',
    'writer-worker': 'dist/adapters/storage/sqlite/writer-worker.js',
    embed: 'dist/main/embed.js',
    deltat: 'dist/main/embed-deltat.js',
    'client-timing': 'dist/client/client-timing.js',
  },
  platform: 'node',
  external: (id) => id.startsWith('node:') || (isPackage(id) && !BUNDLED.some((name) => name.test(id))),
  logLevel: 'warn',
  // One folder: the writer thread starts from ./writer-worker.js beside whichever chunk holds its client.
  output: { dir: NEXT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});
// package.json's bin: npm marks it executable only if it existed at install time, and `npx
// holdfast` after a fresh clone's first build runs it directly.
chmodSync(join(NEXT, 'holdfast.js'), 0o755);
const built = new Set(readdirSync(NEXT));
const existing = (() => {
  try {
    return readdirSync(OUT);
  } catch {
    return [];
  }
})();
if (existing.length === 0) renameSync(NEXT, OUT);
else {
  for (const name of built) renameSync(join(NEXT, name), join(OUT, name));
  for (const name of existing) if (!built.has(name)) rmSync(join(OUT, name));
  rmSync(NEXT, { recursive: true, force: true });
}
