import { readFileSync } from 'node:fs';
import type { Context } from 'hono';
import { packageFile } from '../../files/package-files.js';
import type { PageApp } from '../page-app.js';

/** The console's stylesheet and script, served from this site (the pages' CSP allows nothing else). */
export function mountConsoleAssets(app: PageApp): void {
  const file = (name: string) => readFileSync(packageFile(`assets/${name}`), 'utf8');
  const serve = (body: string, type: string) => (c: Context) =>
    c.body(body, 200, {
      'Content-Type': `${type}; charset=utf-8`,
      'Cache-Control': 'public, max-age=300',
      'X-Content-Type-Options': 'nosniff',
    });
  app.get('/assets/console.css', serve(file('console.css'), 'text/css'));
  app.get('/assets/console.js', serve(file('console.js'), 'text/javascript'));
}
