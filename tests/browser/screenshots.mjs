// Screenshots of each paper family's view for the README and docs/screenshots/, at a laptop
// (1400×900) and a phone (390×844) size, each view run at its defaults first (SCJG on the
// shared SDSC-SP2 trace). Not a test; run it after `trunk build --release --offline`:
//   node tests/browser/screenshots.mjs            (writes docs/screenshots/*.png)
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, repoRoot, traces } from './harness.mjs';

const OUT = path.join(repoRoot, 'docs', 'screenshots');
const SIZES = [['laptop', { width: 1400, height: 900 }, 1], ['phone', { width: 390, height: 844 }, 2]];
// The view's route, what shows it has run, and what to do first.
// The family views are shown from their results (the forms are above them).
const VIEWS = [
  ['scheduling', '[data-testid=report-json]', async () => {}],
  ['sf', '[data-testid=sf-table]', async (p) => { await p.fill('#sf-seeds', '3'); await p.press('#sf-seeds', 'Tab'); await p.click('[data-testid=sf-run]'); }],
  ['scjg', '[data-testid=scjg-table]', async (p) => { await p.setInputFiles('[data-testid=scjg-trace]', path.join(traces, 'SDSC-SP2-1998-4.2-cln.swf.gz')); await p.click('[data-testid=scjg-run]'); }],
  ['ses', '[data-testid=ses-table]', async (p) => { await p.click('[data-testid=ses-run]'); }],
  ['kkor', '[data-testid=kkor-table]', async (p) => { await p.click('[data-testid=kkor-run]'); }],
];

const server = await serve();
const browser = await launch();
fs.mkdirSync(OUT, { recursive: true });
try {
  for (const [size, viewport, scale] of SIZES) {
    for (const [view, done, start] of VIEWS) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: size === 'phone', hasTouch: size === 'phone' });
      const page = await context.newPage();
      await page.goto(`${server.url}#/${view}`);
      await page.waitForSelector(`[data-testid=tab-${view}][aria-current=page]`);
      await start(page);
      await page.waitForSelector(done, { timeout: 120_000, state: 'attached' });
      await page.waitForTimeout(500);
      await page.evaluate(([view, done]) => {
        if (view === 'scheduling') window.scrollTo(0, 0);
        else { document.querySelector(done).scrollIntoView({ block: 'start' }); window.scrollBy(0, -48); }
      }, [view, done]);
      const file = path.join(OUT, `${view}-${size}.png`);
      await page.screenshot({ path: file });
      console.log(`${path.relative(repoRoot, file)}  ${fs.statSync(file).size} bytes`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
