// tsc writes dist/main/cli.js without the executable bit, and npm marks a package's bin executable
// only if it existed at install time: `npx holdfast` after a fresh clone's first build needs this.
import { chmodSync, readFileSync } from 'node:fs';

const { bin } = JSON.parse(readFileSync('package.json', 'utf8'));
for (const path of Object.values(bin)) chmodSync(path, 0o755);
