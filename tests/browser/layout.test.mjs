// Page test of the charts' layout (issue #38): on every view, at a laptop's size and a
// phone's, no chart text runs over another, none is cut by its canvas's edge or hidden
// under the chart's PNG button, and no legend sits over a plotting area (where the data is
// drawn). Each canvas says what it drew: its texts' boxes (`data-texts`, rotation applied),
// its plotting areas (`data-plots`) and its size in CSS pixels (`data-size`), written by the
// charts' drawing backend.
// (release build in dist/: `trunk build --release --offline` first):   node --test tests/browser/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { serve, launch, traces } from './harness.mjs';

const SIZES = [['laptop', { width: 1400, height: 900 }, 1], ['phone', { width: 390, height: 844 }, 3]];
// The view's route, what shows it has run, and what to do first (as screenshots.mjs); "sob"
// is the Scheduling view with SOB's six grid schemes (the SOB figure, six sites), "ab" the
// Scheduling view with its per-job A/B scatter, "energy" the Scheduling view with a power
// model and three idle timeouts (energy against wait, power, nodes by power state).
const VIEWS = [
  ['scheduling', '[data-testid=report-json]', async () => {}],
  ['sob', '[data-testid=chart-sob][data-texts]', async (p) => {
    await p.waitForSelector('[data-testid=report-json]', { state: 'attached', timeout: 120_000 });
    await p.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-light');
    await p.click('[data-testid=run]');
  }],
  ['ab', '[data-testid=chart-ab][data-texts]', async (p) => {
    await p.waitForSelector('[data-testid=report-json]', { state: 'attached', timeout: 120_000 });
    await p.locator('[data-testid=ab]').scrollIntoViewIfNeeded();
    await p.selectOption('[data-testid=ab] label:has-text("A") select', '0');
    await p.selectOption('[data-testid=ab] label:has-text("B") select', '1');
    await p.click('[data-testid=ab-compare]');
  }],
  ['energy', '[data-testid=chart-energy-wait][data-texts]', async (p) => {
    await p.waitForSelector('[data-testid=report-json]', { state: 'attached', timeout: 120_000 });
    await p.selectOption('[data-testid=power-model]', 'batsim-cluster-energy-128');
    await p.fill('[data-testid=idle-off]', 'never, 60, 600');
    await p.press('[data-testid=idle-off]', 'Tab');
    await p.click('[data-testid=run]');
    await p.waitForFunction(() => document.querySelectorAll('[data-testid=energy-table] tbody tr').length === 15, null, { timeout: 120_000 });
    await p.waitForSelector('[data-testid=chart-node-states][data-texts]', { state: 'attached', timeout: 120_000 });
  }],
  ['sf', '[data-testid=sf-table]', async (p) => { await p.fill('#sf-seeds', '2'); await p.press('#sf-seeds', 'Tab'); await p.click('[data-testid=sf-run]'); }],
  ['scjg', '[data-testid=scjg-table]', async (p) => { await p.setInputFiles('[data-testid=scjg-trace]', path.join(traces, 'SDSC-SP2-1998-4.2-cln.swf.gz')); await p.click('[data-testid=scjg-run]'); }],
  ['ses', '[data-testid=ses-table]', async (p) => { await p.click('[data-testid=ses-run]'); }],
  ['kkor', '[data-testid=kkor-table]', async (p) => { await p.click('[data-testid=kkor-run]'); }],
];

/** Every drawn canvas's layout faults: texts over texts, texts cut, legends over data. */
function faults(page) {
  return page.$$eval('canvas[data-texts]', (canvases) => {
    const out = [];
    // Two boxes overlap when they share more than a pixel each way (ticks may touch).
    const over = (a, b) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1
      && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;
    // A hidden view's charts are measured on their own view.
    const shown = canvases.filter((c) => c.getClientRects().length > 0);
    for (const c of shown) {
      const id = c.dataset.testid || c.getAttribute('aria-label');
      const [W, H] = JSON.parse(c.dataset.size);
      const texts = JSON.parse(c.dataset.texts).map(([x, y, w, h, role, text]) => ({ x, y, w, h, role, text }));
      const plots = JSON.parse(c.dataset.plots).map(([x0, y0, x1, y1]) => ({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 }));
      // The PNG button sits over the canvas's top right corner: no text under it.
      const cr = c.getBoundingClientRect();
      const b = c.parentElement.querySelector('.chart-png')?.getBoundingClientRect();
      const button = b && { x: (b.x - cr.x) * W / cr.width, y: (b.y - cr.y) * H / cr.height, w: b.width * W / cr.width, h: b.height * H / cr.height };
      for (let i = 0; i < texts.length; i++) {
        const t = texts[i];
        if (t.x < -1 || t.y < -1 || t.x + t.w > W + 1 || t.y + t.h > H + 1) out.push(`${id}: "${t.text}" cut by the canvas's edge (${t.x},${t.y} ${t.w}×${t.h} in ${W}×${H})`);
        for (let j = i + 1; j < texts.length; j++) {
          if (over(t, texts[j])) out.push(`${id}: "${t.text}" over "${texts[j].text}"`);
        }
        if (t.role === 'legend' && plots.some((p) => over(t, p))) out.push(`${id}: legend "${t.text}" over the data`);
        if (button && over(t, button)) out.push(`${id}: "${t.text}" under the PNG button`);
      }
    }
    return { canvases: shown.length, faults: out };
  });
}

test('no chart text over text, cut by its canvas, or a legend over the data, on a laptop and a phone', async () => {
  const server = await serve();
  const browser = await launch();
  const found = [];
  try {
    for (const [size, viewport, scale] of SIZES) {
      for (const [view, done, start] of VIEWS) {
        const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: size === 'phone', hasTouch: size === 'phone' });
        const page = await context.newPage();
        const route = ['sob', 'ab', 'energy'].includes(view) ? 'scheduling' : view;
        await page.goto(`${server.url}#/${route}`);
        await page.waitForSelector(`[data-testid=tab-${route}][aria-current=page]`);
        await start(page);
        await page.waitForSelector(done, { timeout: 120_000, state: 'attached' });
        // The charts redraw as their boxes settle (a ResizeObserver).
        await page.waitForTimeout(800);
        const f = await faults(page);
        console.log(`# ${size} ${view}: ${f.canvases} charts, ${f.faults.length} layout faults`);
        for (const x of f.faults) console.log(`#   ${x}`);
        assert.ok(f.canvases > 0, `${size} ${view}: no chart drawn`);
        found.push(...f.faults.map((x) => `${size} ${view}: ${x}`));
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(`# layout faults in all: ${found.length}`);
  if (!process.env.LAYOUT_COUNT_ONLY) assert.deepEqual(found, []);
});
